// Package callgen writes synthetic captures of calls whose every figure is known by
// construction: RTP streams with a chosen loss pattern, delays, duplicates and reordering,
// over UDP directly or through TURN ChannelData. Tests assert exact figures on them and the
// benchmarks run on the large captures it writes.
package callgen

import (
	"encoding/binary"
	"net/netip"
	"sort"
	"time"

	"github.com/callpcap/callpcap/internal/testgen/pcapgen"
)

// Stream is one RTP stream to synthesize. Packet i (0-based) has sequence number
// StartSeq+i and timestamp StartTS + i*ClockRate*Interval, is sent at Start + i*Interval and
// captured Delay(i) after that, unless Lose(i).
type Stream struct {
	Src, Dst    netip.AddrPort
	SSRC        uint32
	PT          uint8
	ClockRate   int
	Interval    time.Duration
	PayloadSize int
	Count       int
	StartSeq    uint16
	StartTS     uint32
	Start       time.Duration // offset from the capture's start

	Lose  func(i int) bool          // nil: nothing lost
	Delay func(i int) time.Duration // nil: no extra delay
	Dup   func(i int) bool          // also capture a second copy of packet i, 1 µs later

	// TS, when set, gives packet i's RTP timestamp in place of StartTS + i*ClockRate*Interval
	// (frames of several packets, B-frames, RFC 4733 events, timestamp steps).
	TS func(i int) uint32
	// Send, when set, gives packet i's send time (offset from the capture's start) in place
	// of Start + i*Interval; it is captured Delay(i) after that.
	Send func(i int) time.Duration
	// ASTID, when set, gives every packet an RFC 8285 one-byte header extension element of
	// that id carrying abs-send-time: its send time as 6.18 fixed-point seconds mod 64 s.
	ASTID uint8

	// Channel, when set, wraps every packet in TURN ChannelData with this channel number
	// (the flow then runs between Src and Dst, which are the TURN client and server).
	Channel uint16

	// Fill, when set, writes packet i's payload (every byte after the header) in place of the
	// default pattern: random bytes stand for SRTP, zeros for what scrub leaves of them.
	Fill func(i int, payload []byte)
	// Padded, when set, sets the P bit of packet i (RFC 3550, 5.1); Fill writes its padding
	// and count, or, standing for SRTP, the auth tag whose last byte is read as the count.
	Padded func(i int) bool
}

// Packet is one frame of the capture, before sorting by time.
type Packet struct {
	T     int64
	Frame []byte
}

// Epoch is the capture start of every synthesized call: 2026-11-29T10:00:00Z.
var Epoch = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC).UnixNano()

// RTP builds the RTP packet for stream s's packet i.
func (s *Stream) RTP(i int) []byte {
	h := 12
	if s.ASTID != 0 {
		h += 8 // extension header, one element of 1+3 bytes
	}
	b := make([]byte, h+s.PayloadSize)
	b[0] = 0x80
	b[1] = s.PT & 0x7f
	binary.BigEndian.PutUint16(b[2:], s.StartSeq+uint16(i))
	ts := uint32(uint64(s.StartTS) + uint64(i)*uint64(s.ClockRate)*uint64(s.Interval)/uint64(time.Second))
	if s.TS != nil {
		ts = s.TS(i)
	}
	binary.BigEndian.PutUint32(b[4:], ts)
	binary.BigEndian.PutUint32(b[8:], s.SSRC)
	if s.Padded != nil && s.Padded(i) {
		b[0] |= 0x20
	}
	if s.ASTID != 0 {
		b[0] |= 0x10
		binary.BigEndian.PutUint16(b[12:], 0xBEDE)
		binary.BigEndian.PutUint16(b[14:], 1)
		ast := uint32((uint64(s.sendAt(i)) << 18 / uint64(time.Second)) & (1<<24 - 1))
		b[16], b[17], b[18], b[19] = s.ASTID<<4|2, byte(ast>>16), byte(ast>>8), byte(ast)
	}
	if s.Fill != nil {
		s.Fill(i, b[h:])
		return b
	}
	for j := h; j < len(b); j++ {
		b[j] = byte(i + j)
	}
	return b
}

// sendAt is packet i's send time from the capture's start.
func (s *Stream) sendAt(i int) time.Duration {
	if s.Send != nil {
		return s.Send(i)
	}
	return s.Start + time.Duration(i)*s.Interval
}

// Packets returns the frames of stream s (Ethernet, IPv4 or IPv6, UDP).
func (s *Stream) Packets() []Packet {
	var out []Packet
	for i := 0; i < s.Count; i++ {
		if s.Lose != nil && s.Lose(i) {
			continue
		}
		t := Epoch + int64(s.sendAt(i))
		if s.Delay != nil {
			t += int64(s.Delay(i))
		}
		payload := s.RTP(i)
		if s.Channel != 0 {
			payload = ChannelData(s.Channel, payload)
		}
		frame := etherUDP(s.Src, s.Dst, payload)
		out = append(out, Packet{T: t, Frame: frame})
		if s.Dup != nil && s.Dup(i) {
			out = append(out, Packet{T: t + 1000, Frame: frame})
		}
	}
	return out
}

// DTLSRecord is one DTLS 1.2 handshake record (RFC 6347, 4.1) of 32 body bytes sent at at
// from src to dst: what tells the analysis the flow's RTP is DTLS-SRTP (RFC 5764).
func DTLSRecord(at time.Duration, src, dst netip.AddrPort) Packet {
	b := []byte{22, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, 0, 1, 0, 32} // handshake, DTLS 1.2, epoch 0, seq 1, length 32
	b = append(b, make([]byte, 32)...)
	return Packet{T: Epoch + int64(at), Frame: etherUDP(src, dst, b)}
}

// DTLSServerHello is a DTLS 1.2 ServerHello (RFC 6347, RFC 5246 7.4.1.3) sent at at from
// src to dst, choosing SRTP protection profile profile in its use_srtp extension (RFC 5764
// 4.1.1; 1 is SRTP_AES128_CM_HMAC_SHA1_80, 7 SRTP_AEAD_AES_128_GCM), or with no use_srtp
// when profile is 0, as a DTLS 1.3 ServerHello, whose use_srtp is encrypted.
func DTLSServerHello(at time.Duration, src, dst netip.AddrPort, profile uint16) Packet {
	body := append([]byte{0xfe, 0xfd}, make([]byte, 32)...) // server_version, random
	body = append(body, 0, 0xc0, 0x2b, 0)                   // no session_id, cipher_suite, no compression
	ext := []byte{0xff, 0x01, 0, 1, 0}                      // renegotiation_info
	if profile != 0 {
		ext = append(ext, 0, 14, 0, 5, 0, 2, byte(profile>>8), byte(profile), 0) // use_srtp, no MKI
	}
	body = binary.BigEndian.AppendUint16(body, uint16(len(ext)))
	body = append(body, ext...)
	n := len(body)
	msg := append([]byte{2, 0, byte(n >> 8), byte(n), 0, 0, 0, 0, 0, 0, byte(n >> 8), byte(n)}, body...)
	rec := []byte{22, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, 0, 1}
	rec = binary.BigEndian.AppendUint16(rec, uint16(len(msg)))
	return Packet{T: Epoch + int64(at), Frame: etherUDP(src, dst, append(rec, msg...))}
}

// ChannelData wraps payload in a TURN ChannelData message (RFC 8656, 12.4), padded to 4 bytes.
func ChannelData(channel uint16, payload []byte) []byte {
	b := make([]byte, 4, 4+len(payload)+3)
	binary.BigEndian.PutUint16(b, channel)
	binary.BigEndian.PutUint16(b[2:], uint16(len(payload)))
	b = append(b, payload...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// Write sorts the packets by time (stable, so equal times keep their order) and writes them.
func Write(w *pcapgen.Writer, pkts []Packet) error {
	sort.SliceStable(pkts, func(i, j int) bool { return pkts[i].T < pkts[j].T })
	for _, p := range pkts {
		if err := w.Write(p.T, 0, p.Frame, 0); err != nil {
			return err
		}
	}
	return w.Err()
}

func etherUDP(src, dst netip.AddrPort, payload []byte) []byte {
	return pcapgen.EtherUDP(src, dst, payload)
}
