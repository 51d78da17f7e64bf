module ticktarget

go 1.24

require github.com/google/gops v0.3.28

require golang.org/x/sys v0.11.0 // indirect
