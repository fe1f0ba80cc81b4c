package tcpframe

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// srtpStream is n frames of SRTP as a framing carries it: RTP headers in the clear (one
// SSRC, sequence numbers counting up) and payloads of random bytes, each frame wrapped by
// wrap.
func srtpStream(n, payload int, seed uint64, wrap func([]byte) []byte) (stream []byte, bounds []int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	for k := range n {
		p := make([]byte, 12+payload)
		p[0], p[1] = 0x80, 96
		binary.BigEndian.PutUint16(p[2:], uint16(1000+k))
		binary.BigEndian.PutUint32(p[4:], uint32(3000*k))
		binary.BigEndian.PutUint32(p[8:], 0x11223344)
		for i := 12; i < len(p); i++ {
			p[i] = byte(rng.Uint32())
		}
		bounds = append(bounds, len(stream))
		stream = append(stream, wrap(p)...)
	}
	return stream, bounds
}

// TestDetectMidStream: a capture that starts inside a message of SRTP over RFC 4571 or
// TURN ChannelData begins with the random tail of its payload. Detection must skip to the
// next frame boundary, at every offset inside the first frame, with all the capture read
// (70 KB, to its end or not) or only its first 8 KiB (where it may also ask for more). One
// valid successor was too weak a proof there: the random tail made false headers that it
// confirmed about one time in three (RFC 4571); so was a run of valid frames, which a
// false frame ending on a true boundary continues.
func TestDetectMidStream(t *testing.T) {
	framings := []struct {
		name string
		want Framing
		wrap func([]byte) []byte
	}{
		{"rfc4571", FramingRFC4571, rfc4571},
		{"turn", FramingTURN, func(p []byte) []byte { return channelDataOf(0x4001, p, true) }},
	}
	for _, fr := range framings {
		for seed := range uint64(4) {
			stream, bounds := srtpStream(400, 160, seed, fr.wrap)
			fails := 0
			for off := 1; off < bounds[1]; off++ {
				for _, part := range []struct {
					n     int
					atEOF bool
				}{{len(stream), true}, {len(stream), false}, {8 << 10, false}} {
					data, atEOF := stream[off:min(off+part.n, len(stream))], part.atEOF
					k, skip, ok := Detect(data, atEOF, false)
					if !ok && part.n < runSpan {
						continue // a false header further on waits for its run: more data will tell
					}
					if !ok || k != fr.want || off+skip != bounds[1] {
						fails++
						if fails <= 3 {
							t.Errorf("%s seed %d from byte %d (atEOF %v): %v at %d (ok %v), want %v at %d",
								fr.name, seed, off, atEOF, k, off+skip, ok, fr.want, bounds[1])
						}
					}
				}
			}
			if fails > 3 {
				t.Errorf("%s seed %d: %d detections wrong of %d", fr.name, seed, fails, 3*(bounds[1]-1))
			}
		}
	}
}
