// Package folded writes Brendan Gregg's folded stacks, the input of flame
// graph tools: one line per distinct stack with its count.
package folded
