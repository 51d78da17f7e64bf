package ptrace

const sysProcessVMReadv = 270
