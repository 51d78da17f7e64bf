module example.com/pidtarget

go 1.20
