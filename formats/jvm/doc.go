// Package jvm reads JVM thread dumps (jstack, jcmd Thread.print, kill -3,
// Thread.dump_to_file as text or JSON) and writes them back as jstack text
// (docs/jvm.md).
package jvm
