package tcpframe

// Hold says how well a connection's framing held over the whole connection, both
// directions: detection looks at the first bytes only, and any stream of bytes (text, a
// VPN's ciphertext) holds, somewhere, a 16-bit length followed by a byte that RFC 4571
// accepts. A framing that is real cuts every frame where the previous one ended; one read
// into other bytes breaks again and again, each time skipping bytes to find a header.
type Hold struct {
	Messages    int64 // frames cut as messages
	FramedBytes int64 // the bytes of those frames, their framing included
	// Breaks counts the times a header did not validate where the previous frame said one
	// began; BrokenBytes the bytes skipped after those to find the framing again. Bytes
	// skipped after a capture gap, or before the first frame of a capture that starts
	// mid-connection, are the capture's doing and count in neither.
	Breaks, BrokenBytes int64
}

// Hold returns how the framing held so far, both directions together.
func (c *Conn) Hold() Hold {
	var h Hold
	for i := range c.dirs {
		s := &c.dirs[i].stats
		h.Messages += s.messages
		h.FramedBytes += s.framedBytes
		h.Breaks += s.breaks
		h.BrokenBytes += s.brokenBytes
	}
	return h
}

// The rule of Holds, in whole numbers: at most one break per maxBreaksPer messages, or one
// in all from minOneBreak messages, and at least minFramedPermille of the bytes read after
// detection in frames.
const (
	maxBreaksPer      = 100
	minOneBreak       = 20
	minFramedPermille = 990
)

// Holds says whether the framing held across the connection: at least one message, at most
// one break per 100 messages (one in all is allowed from 20 messages), and at least 99% of
// the bytes the unframer read (after detection, leaving out capture gaps) in valid frames.
// A real RFC 4571 or TURN stream never breaks but where the capture lost bytes or a sender
// wrote garbage once; a framing read into other bytes breaks at most frames, since a random
// 16-bit length lands on a valid header only by chance (about one time in three for RFC
// 4571's first-byte check), so it fails by breaks even when its huge false frames cover
// most bytes: 20 frames in a row by chance before a single break has odds of about 3^-20.
// The ratio of breaks to messages, not to bytes, keeps the rule the same for a short
// connection and a long one; the one break allowed from 20 messages keeps a short call
// with one run of garbage (h151: 37 bytes among 45 messages) a media connection.
func (h Hold) Holds() bool {
	breaksOK := h.Breaks*maxBreaksPer <= h.Messages || h.Breaks == 1 && h.Messages >= minOneBreak
	return h.Messages > 0 && breaksOK && h.FramedBytes*1000 >= (h.FramedBytes+h.BrokenBytes)*minFramedPermille
}
