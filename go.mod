module github.com/callpcap/callpcap

go 1.26.8

require github.com/HdrHistogram/hdrhistogram-go v1.4.0

require github.com/stretchr/testify v1.12.1 // indirect
