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
	TransportTURNTLS Transport = "turn-tls" // TLS where media would be, on 5349 or 443: the media is hidden
	TransportICETCP  Transport = "ice-tcp"  // ICE-TCP, RFC 6544 (RFC 4571 framing)
	TransportTCP     Transport = "tcp"      // over TCP, framing not recognised
	// TransportTLS is DESIGN's leg of TLS where media would be, not known to be TURN's. No
	// rule gives it today: TLS is a leg only on TURN's ports (analysis.tlsMedia), as
	// turn-tls; another port's steady TLS is as often a remote desktop or a game.
	TransportTLS Transport = "tls"
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

// TURNErrorReason is the reason phrase of a STUN or TURN error code (RFC 8489 14.8,
// RFC 8656 18), "" for a code without one here.
func TURNErrorReason(code int) string {
	switch code {
	case 300:
		return "Try Alternate"
	case 400:
		return "Bad Request"
	case 401:
		return "Unauthorized"
	case 403:
		return "Forbidden"
	case 420:
		return "Unknown Attribute"
	case 437:
		return "Allocation Mismatch"
	case 438:
		return "Stale Nonce"
	case 440:
		return "Address Family not Supported"
	case 441:
		return "Wrong Credentials"
	case 442:
		return "Unsupported Transport Protocol"
	case 443:
		return "Peer Address Family Mismatch"
	case 486:
		return "Allocation Quota Reached"
	case 500:
		return "Server Error"
	case 508:
		return "Insufficient Capacity"
	}
	return ""
}

// TURNErrorRoutine reports whether an error response is part of a working exchange rather
// than a failure: 401 is the authentication challenge every long-term-credential client
// gets on its first request (RFC 8489 9.2.4), 438 asks it to retry with a fresh nonce
// (RFC 8489 9.2.5), and 300 redirects it to another server (RFC 8489 10). The client
// retries at once in each case; only when no allocation is granted in the end do they say
// something. Every other code (403 a refused peer or request, 437 an allocation that does
// not exist or already does, 441 credentials that do not match the allocation's, 486 the
// user's quota, 508 the server's capacity, 4xx malformed requests, 500) is a failure.
func TURNErrorRoutine(code int) bool { return code == 300 || code == 401 || code == 438 }
