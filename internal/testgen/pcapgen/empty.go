package pcapgen

import (
	"bytes"

	"github.com/callpcap/callpcap/capture"
)

// EmptyPcap returns a classic pcap file that holds its header and no packet, as tcpdump
// writes when it captured nothing: 24 bytes, microseconds, little-endian, Ethernet.
func EmptyPcap() []byte {
	var b bytes.Buffer
	NewPcap(&b, capture.LinkEthernet, false, false, 0)
	return b.Bytes()
}

// EmptyPcapNG returns a pcapng file that holds a Section Header Block, one Ethernet
// interface (an Interface Description Block) and no packet, as dumpcap writes when it
// captured nothing.
func EmptyPcapNG() []byte {
	var b bytes.Buffer
	NewPcapNG(&b, []Iface{{Link: capture.LinkEthernet}})
	return b.Bytes()
}
