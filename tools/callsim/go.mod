module github.com/callpcap/callpcap/tools/callsim

go 1.26.8

require golang.org/x/sys v0.50.0
