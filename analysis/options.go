package analysis

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/callpcap/callpcap/demux"
	"github.com/callpcap/callpcap/report"
	"github.com/callpcap/callpcap/tcpframe"
	"github.com/callpcap/callpcap/wire"
)

// Options are the analysis settings; the zero value means the documented defaults.
type Options struct {
	LateBudget     time.Duration // 0: report.DefaultLateBudget
	RampTargetKbps float64       // 0: the plateau
	MinPackets     int           // 0: report.DefaultMinPackets
	DecodeAs       []DecodeAs
	MaxFlows       int // 0: 100,000 flows tracked; beyond that counted in a warning

	// wholeMessages makes TCP connections hold RTP messages whole while they wait for the
	// ACK that dates them, rather than by their heads (tcpframe.Config.HeadsOnly), of which
	// the analysis reads all it reads: a test sets it to check that no figure changes.
	wholeMessages bool
}

// DecodeAs forces the class of every datagram to or from Port, whatever the heuristics say.
type DecodeAs struct {
	Proto string // rtp, rtcp, stun, turn or rfc4571
	Port  uint16
}

// ParseDecodeAs parses "PROTO=PORT" as given to --decode-as.
func ParseDecodeAs(s string) (DecodeAs, error) {
	proto, port, ok := strings.Cut(s, "=")
	if !ok {
		return DecodeAs{}, fmt.Errorf("decode-as %q: want PROTO=PORT", s)
	}
	proto = strings.ToLower(strings.TrimSpace(proto))
	switch proto {
	case "rtp", "rtcp", "stun", "turn", "rfc4571":
	default:
		return DecodeAs{}, fmt.Errorf("decode-as %q: protocol must be rtp, rtcp, stun, turn or rfc4571", s)
	}
	n, err := strconv.ParseUint(strings.TrimSpace(port), 10, 16)
	if err != nil || n == 0 {
		return DecodeAs{}, fmt.Errorf("decode-as %q: port must be 1-65535", s)
	}
	return DecodeAs{Proto: proto, Port: uint16(n)}, nil
}

func (o Options) lateBudget() time.Duration {
	if o.LateBudget <= 0 {
		return report.DefaultLateBudget
	}
	return o.LateBudget
}

func (o Options) minPackets() int {
	if o.MinPackets <= 0 {
		return report.DefaultMinPackets
	}
	return o.MinPackets
}

func (o Options) maxFlows() int {
	if o.MaxFlows <= 0 {
		return 100_000
	}
	return o.MaxFlows
}

// forcedClass returns the class --decode-as imposes on a UDP datagram between the ports:
// rtp, rtcp and stun as named; turn as ChannelData when the first byte is that of a channel
// number (0x40-0x4F, or RFC 5766's 0x50-0x7F: the user said the port is TURN's, not QUIC's),
// else STUN. The parsers downstream still validate what they parse.
func (o Options) forcedClass(sport, dport uint16, first byte) (demux.Class, bool) {
	for _, d := range o.DecodeAs {
		if d.Port != sport && d.Port != dport {
			continue
		}
		switch d.Proto {
		case "rtp":
			return demux.ClassRTP, true
		case "rtcp":
			return demux.ClassRTCP, true
		case "stun":
			return demux.ClassSTUN, true
		case "turn":
			if wire.FirstByte(first) == wire.RangeChannelData || wire.IsLegacyChannelByte(first) {
				return demux.ClassChannelData, true
			}
			return demux.ClassSTUN, true
		}
	}
	return 0, false
}

// forcedFraming returns the TCP framing --decode-as imposes on a connection between the
// ports: rfc4571 as named, turn as TURN over TCP; FramingNone (detect) otherwise.
func (o Options) forcedFraming(aport, bport uint16) tcpframe.Framing {
	for _, d := range o.DecodeAs {
		if d.Port != aport && d.Port != bport {
			continue
		}
		switch d.Proto {
		case "rfc4571":
			return tcpframe.FramingRFC4571
		case "turn":
			return tcpframe.FramingTURN
		}
	}
	return tcpframe.FramingNone
}
