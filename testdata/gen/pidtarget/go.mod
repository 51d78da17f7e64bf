module pidtarget

go 1.20
