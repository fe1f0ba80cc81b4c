package report

import "time"

// The defaults of DESIGN's command line; Options says which values a report used. The
// stages that take these settings default to the same values.
const (
	DefaultLateBudget = 150 * time.Millisecond
	DefaultMinPackets = 10
)

// Transport is how a leg carried media (DESIGN, "Legs, directions, relay").
type Transport string

const (
	TransportUDP     Transport = "udp"      // direct
	TransportTURNUDP Transport = "turn-udp" // relayed by TURN over UDP
	TransportTURNTCP Transport = "turn-tcp" // relayed by TURN over TCP (RFC 8656)
	TransportTURNTLS Transport = "turn-tls" // relayed by TURN over TLS: in the contract, but the analysis cannot tell it from tls
	TransportICETCP  Transport = "ice-tcp"  // ICE-TCP, RFC 6544 (RFC 4571 framing)
	TransportTCP     Transport = "tcp"      // over TCP, framing not recognised
	TransportTLS     Transport = "tls"      // TLS records: the media is hidden
)

// TURN reports whether media on the leg went through a TURN relay.
func (t Transport) TURN() bool {
	return t == TransportTURNUDP || t == TransportTURNTCP || t == TransportTURNTLS
}

// OverTCP reports whether media on the leg rode TCP, where every loss becomes delay.
func (t Transport) OverTCP() bool {
	switch t {
	case TransportTURNTCP, TransportTURNTLS, TransportICETCP, TransportTCP, TransportTLS:
		return true
	}
	return false
}

// Framing is how a TCP connection carried its messages (DESIGN, "Unframing").
type Framing string

const (
	FramingNone    Framing = "none"    // no payload
	FramingRFC4571 Framing = "rfc4571" // 16-bit length prefix (ICE-TCP)
	FramingTURN    Framing = "turn"    // STUN and ChannelData (TURN over TCP)
	FramingTLS     Framing = "tls"     // TLS records
	FramingUnknown Framing = "unknown" // payload no framing explains
)

// Vantage is where a capture was taken relative to one TCP direction's sender and receiver.
type Vantage string

const (
	VantageSender   Vantage = "sender"
	VantageReceiver Vantage = "receiver"
	VantageMiddle   Vantage = "middle"
	VantageUnknown  Vantage = "unknown"
)

// Severity says how bad a finding is.
type Severity string

const (
	SeverityInfo Severity = "info"
	SeverityWarn Severity = "warn"
	SeverityBad  Severity = "bad"
)

// Rank orders severities, the worst first: bad 0, warn 1, info 2.
func (s Severity) Rank() int {
	switch s {
	case SeverityBad:
		return 0
	case SeverityWarn:
		return 1
	}
	return 2
}

// FindingCode names a finding; codes are stable (DESIGN, "Findings").
type FindingCode string

const (
	FindingMediaOverTCP       FindingCode = "media_over_tcp"
	FindingMediaOverTURN      FindingCode = "media_over_turn"
	FindingTCPRetransmissions FindingCode = "tcp_retransmissions"
	FindingLatePackets        FindingCode = "late_packets"
	FindingSlowRamp           FindingCode = "slow_ramp"
	FindingUnstableBitrate    FindingCode = "unstable_bitrate"
	FindingRTPLoss            FindingCode = "rtp_loss"
	FindingDroppedBeforeTCP   FindingCode = "dropped_before_tcp"
	FindingHighJitter         FindingCode = "high_jitter"
	FindingLowEfficiency      FindingCode = "low_efficiency"
	FindingICEFailed          FindingCode = "ice_failed"
	FindingTURNErrors         FindingCode = "turn_errors"
	FindingCaptureGaps        FindingCode = "capture_gaps"
	FindingSnappedPackets     FindingCode = "snapped_packets"
	FindingEncryptedMedia     FindingCode = "encrypted_media"
	FindingWindowStalls       FindingCode = "window_stalls"
)
