package ptrace

const sysProcessVMReadv = 310
