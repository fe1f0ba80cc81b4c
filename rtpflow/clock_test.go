package rtpflow

import (
	"fmt"
	"strings"
	"testing"
)

// TestInferEarly: 50 packets of 20 ms at 48 kHz; the clock must read 48 kHz whether the
// last packets waited behind a TCP retransmission, the first came in a burst, or a full
// window held packets 10-37 and let them go together 695 ms after packet 10 was due (more
// than half of the buffer: the median of the pairs read 32 kHz before held packets were
// left out); and, over 104 packets, when the first 56 (1.12 s of audio) were the sender's
// backlog, delivered 0.9 ms apart when its ICE-TCP connection was ready (GStreamer's
// webrtcbin), and the rest 20 ms after they were due: half of the pairs read 97 kHz, and
// the clock was taken for 90 kHz before bunched packets were left out.
func TestInferEarly(t *testing.T) {
	const ms = int64(1e6)
	cases := []struct {
		name string
		n    int // packets; 50 when 0
		// arrival of packet i, late by its delay after it was due, or, when held, at
		// the given time, held by the window
		delay func(i int) (d int64, held bool)
	}{
		{"steady", 0, func(int) (int64, bool) { return 0, false }},
		{"last packets held 300 ms", 0, func(i int) (int64, bool) {
			if i >= 45 {
				return int64(300-(i-45)*20) * ms, false
			}
			return 0, false
		}},
		{"first packets in a burst", 0, func(i int) (int64, bool) {
			if i < 10 {
				return int64(200-i*20) * ms, false
			}
			return 0, false
		}},
		{"packets 10-37 held by the window", 0, func(i int) (int64, bool) {
			if i >= 10 && i <= 37 {
				return int64(10-i)*20*ms + 695*ms, true
			}
			return 0, false
		}},
		{"a backlog of 56 delivered at once", 104, func(i int) (int64, bool) {
			if i < 56 {
				return 1120*ms + int64(i)*9*ms/10 - int64(i)*20*ms, false
			}
			return 20 * ms, false
		}},
	}
	for _, c := range cases {
		var e []early
		for i := 0; i < max(c.n, 50); i++ {
			d, held := c.delay(i)
			hd := holdNone
			if held {
				hd = holdWindow
			}
			e = append(e, early{at: int64(i)*20*ms + d, ts: int64(i) * 960, hd: hd})
		}
		if got, _ := inferEarly(e); got != 48000 {
			t.Errorf("%s: %d Hz, want 48000", c.name, got)
		}
	}
}

// TestInferEarlyTCPStart: the first 256 packets of a 30 fps video stream (90 kHz, 3000
// ticks a frame) as a Linux receiver got them over TCP with an 80 ms round trip and 2%
// loss (a real capture): frame 0 on time, a loss repaired at 177 ms, the sender's backlog
// drained at the link's rate, then a round trip's bursts behind further repairs. Of the
// packets nothing held, most came from the backlog, faster than the sender's pace: the
// median of the pairs read 44.1 kHz. The fastest packets, frame 0's and the last one,
// read 90 kHz.
func TestInferEarlyTCPStart(t *testing.T) {
	// count:arrival ms:frame:hold, in arrival order
	const trace = `8:0:0:1 1:2:0:1 1:4:0:1 1:82:0:1 3:177:0:3 2:177:0:2 20:177:1:2 6:177:2:2
		1:180:2:1 2:182:2:1 1:185:2:1 1:188:2:1 2:191:2:1 1:194:2:1 1:196:2:1 2:200:2:1 1:203:2:1
		1:205:2:1 1:208:2:1 1:211:3:1 2:213:3:1 1:216:3:1 1:219:3:1 2:222:3:1 1:224:3:1 1:251:3:1
		2:253:3:1 1:255:3:1 1:257:3:1 1:258:3:1 2:259:4:1 1:261:4:1 1:262:4:1 1:263:4:1 2:265:4:1
		1:266:4:1 1:267:4:1 2:269:4:1 1:270:4:1 1:271:4:1 2:273:4:1 1:274:4:1 1:276:4:1 1:277:4:1
		1:278:5:1 2:280:5:1 1:281:5:1 1:282:5:1 2:284:5:1 1:285:5:1 1:286:5:1 2:288:5:1 1:289:5:1
		1:291:6:1 1:292:6:1 1:293:6:1 2:295:6:1 1:296:6:1 1:297:6:1 2:299:6:1 1:300:6:1 2:386:6:3
		7:386:6:2 5:386:7:2 18:386:8:2 10:386:9:2 3:447:9:3 12:447:10:2 12:447:11:2 5:447:12:2
		14:514:13:2 13:514:14:2 1:563:14:3 15:563:15:2 8:563:16:2 1:620:16:3 14:620:17:2 5:620:18:2
		1:633:19:1`
	var e []early
	for _, f := range strings.Fields(trace) {
		var n, at, frame, hd int64
		if _, err := fmt.Sscanf(f, "%d:%d:%d:%d", &n, &at, &frame, &hd); err != nil {
			t.Fatal(err)
		}
		for range n {
			e = append(e, early{at: at * 1e6, ts: frame * 3000, hd: hold(hd), media: true})
		}
	}
	if len(e) != earlyMax {
		t.Fatalf("%d packets, want %d", len(e), earlyMax)
	}
	if got, _ := inferEarly(e); got != 90000 {
		t.Errorf("%d Hz, want 90000", got)
	}
}

// TestInferEarlyVideoBacklog: a 30 fps video stream (90 kHz, a frame a packet) whose first
// 25 frames, 0.83 s of video, were its sender's backlog, delivered 7 ms apart when its
// ICE-TCP connection was ready (GStreamer's webrtcbin), then a frame every 33.3 ms. Half
// of the pairs read beyond any clock, and no clock was taken from the first second: the
// stream's first 82 packets had no jitter or delay. Without the backlog, 90 kHz.
func TestInferEarlyVideoBacklog(t *testing.T) {
	var e []early
	for i := range 50 {
		at := int64(i) * 7e6
		if i >= 25 {
			at = 175e6 + int64(i-25)*100e6/3
		}
		e = append(e, early{at: at, ts: int64(i) * 3000, media: true})
	}
	if got, _ := inferEarly(e); got != 90000 {
		t.Errorf("%d Hz, want 90000", got)
	}
}
