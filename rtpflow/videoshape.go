package rtpflow

// videoShape tells whether a stream's first packets carry video frames: several large
// packets to a timestamp (a frame split to fit the path's MTU), frame after frame. Every
// RTP video payload format runs its timestamps at 90 kHz (RFC 3551 and each format's RFC:
// H.264, VP8, VP9, AV1, H.265), so such a stream's clock is 90 kHz whatever the ratio of
// its timestamps to its arrivals says: in a capture that begins while a queue fills, the
// first second of Chromium's 30 fps video over TURN/TCP arrived at 0.6 times its pace and
// read 48 kHz, and the stream was taken for audio. No audio codec splits a frame over
// packets; RFC 4733 events, which repeat a timestamp, are 4 bytes; and bandwidth probes
// (libwebrtc's on SSRC 0, RingRTC's) keep one timestamp throughout, which is no frame
// after frame.
type videoShape struct {
	n, continued int32
	split        int32 // timestamps carried by two packets or more
	lastTS       uint32
	lastSplit    bool // the last timestamp is counted in split
}

// minFramePayload is the payload from which a packet that repeats the timestamp before
// it continues a video frame.
const minFramePayload = 200

func (v *videoShape) add(ts uint32, payload int) {
	switch {
	case v.n == 0 || ts != v.lastTS:
		v.lastTS, v.lastSplit = ts, false
	case payload >= minFramePayload:
		v.continued++
		if !v.lastSplit {
			v.split++
			v.lastSplit = true
		}
	}
	v.n++
}

// frames says whether the packets added were video frames: at least three timestamps
// each carried by several packets, and at least a quarter of the packets continuing one.
func (v *videoShape) frames() bool { return v.split >= 3 && 4*v.continued >= v.n }
