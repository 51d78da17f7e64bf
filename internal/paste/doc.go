// Package paste turns a real goroutine or JVM thread dump into the forms it
// takes when a person pastes it into a GitHub issue, a chat, a ticket or a log
// system and copies it back out: Markdown fences, quotes, log prefixes, cut
// ends, flattened indentation and so on. Each transformation imitates a form
// found in a public paste; docs/paste-forms.md lists them with the example each
// one was taken from.
//
// A [Transform] is named, deterministic for a seed, and composable
// ([Compose]). Its [Loss] says what a reader may promise on the result: a frame
// around intact dump lines must read exactly as the original, lines altered in a
// way a reader can undo must read the same after inference, and a form that
// really lost part of the dump must read what is left with a warning. [All]
// lists every transformation, [Combos] the compositions seen in real pastes.
//
// The package is for tests and the corpus generator (testdata/gen/paste); it
// reads nothing and uses the standard library alone.
package paste
