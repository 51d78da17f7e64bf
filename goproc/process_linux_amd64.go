package goproc

const sysProcessVMReadv = 310
