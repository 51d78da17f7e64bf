package goproc

const sysProcessVMReadv = 270
