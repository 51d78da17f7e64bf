module oldgo

go 1.20
