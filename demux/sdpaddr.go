package demux

import (
	"bytes"
	"net/netip"
)

// Where a media section receives. A SIP offer or answer says it with the c= address and
// the m= port; WebRTC's SDP (RFC 8829) often says it only with ICE candidates (RFC 8839,
// 5.1), its c= being 0.0.0.0 and its port 9 until they are gathered, and with BUNDLE (RFC
// 9143) every section of a group receives on the transport of the group's tagged section,
// a bundled answer's other sections carrying port 9 or 0 and c=0.0.0.0.

const (
	// maxSectionAddrs bounds the addresses a section receives on by its own lines: its
	// c= address and port, then its candidates.
	maxSectionAddrs = 4
	// maxSections bounds the media sections whose addresses are kept: a section beyond
	// it has none (its payload types are still given for its sources). An SFU's offer in a
	// large meeting has two a participant; 64 KiB of SDP holds about a thousand.
	maxSections = 1024
	// maxBundles bounds the BUNDLE groups read from one description.
	maxBundles = 4
)

// sectionAddr is where one media section receives by its own lines, and its mid.
type sectionAddr struct {
	mid   []byte
	port  int // the m= port, 0 when rejected or bundle-only
	conn  netip.Addr
	cands [maxSectionAddrs]netip.AddrPort
	nc    int
	tag   int // the index of its BUNDLE group's tagged section; -1 when none
}

// sdpAddrs is where each media section of a description receives (read).
type sdpAddrs struct {
	secs    []sectionAddr
	n       int
	session netip.Addr
	out     [2 * maxSectionAddrs]netip.AddrPort // of's result
}

// read reads where each media section of an SDP body receives, a first pass
// before its payload types are read: the c= address (the section's, else the session's)
// with the m= port, unless either is unspecified or 0 (a rejected section, or an old-style
// hold: RFC 3264, 6 and 8.4); the addresses of its ICE candidates of component 1 (RTP,
// and RTCP with rtcp-mux), UDP or TCP, but not an active TCP candidate's port 9 (RFC 6544,
// 4.5), which receives nothing; and, for a section in a BUNDLE group (a=group:BUNDLE, by
// a=mid), the addresses of the group's tagged section, the first the group names.
func (a *sdpAddrs) read(body []byte) {
	*a = sdpAddrs{secs: a.secs[:0]}
	var groups [maxBundles][][]byte
	nGroups := 0
	cur := -1 // the section being read; -1 at session level, or beyond maxSections
	in := false
	for typ, v := range sdpLines(body) {
		switch typ {
		case 'm':
			in, cur = true, -1
			if a.n < maxSections {
				cur = a.n
				a.n++
				a.secs = append(a.secs, sectionAddr{tag: -1})
				_, rest := nextField(v)
				port, _ := nextField(rest)
				a.secs[cur].port, _ = mPort(port)
			}
		case 'c':
			c, ok := connAddr(v)
			switch {
			case !ok:
			case !in:
				a.session = c
			case cur >= 0:
				a.secs[cur].conn = c
			}
		case 'a':
			switch {
			case !in && bytes.HasPrefix(v, []byte("group:BUNDLE")) && nGroups < maxBundles:
				rest := v[len("group:BUNDLE"):]
				for len(rest) > 0 && len(groups[nGroups]) < maxSections {
					var tok []byte
					tok, rest = nextField(rest)
					if len(tok) > 0 {
						groups[nGroups] = append(groups[nGroups], tok)
					}
				}
				nGroups++
			case cur < 0:
			case bytes.HasPrefix(v, []byte("mid:")):
				a.secs[cur].mid = bytes.TrimSpace(v[len("mid:"):])
			case bytes.HasPrefix(v, []byte("candidate:")):
				if ap, ok := candidateAddr(v[len("candidate:"):]); ok {
					a.secs[cur].add(ap)
				}
			}
		}
	}
	for _, group := range groups[:nGroups] {
		if len(group) == 0 {
			continue
		}
		tag := a.mid(group[0])
		if tag < 0 {
			continue
		}
		for _, m := range group {
			if i := a.mid(m); i >= 0 && a.secs[i].tag < 0 {
				a.secs[i].tag = tag
			}
		}
	}
}

// mid returns the index of the section with mid m, or -1.
func (a *sdpAddrs) mid(m []byte) int {
	for i := range a.secs[:a.n] {
		if len(m) > 0 && bytes.Equal(a.secs[i].mid, m) {
			return i
		}
	}
	return -1
}

// add adds a candidate's address, once.
func (s *sectionAddr) add(ap netip.AddrPort) {
	for _, c := range s.cands[:s.nc] {
		if c == ap {
			return
		}
	}
	if s.nc < len(s.cands) {
		s.cands[s.nc] = ap
		s.nc++
	}
}

// own appends to out the addresses section i receives on by its own lines: its c=
// address and port first, then its candidates, at most maxSectionAddrs.
func (a *sdpAddrs) own(out []netip.AddrPort, i int) []netip.AddrPort {
	s := &a.secs[i]
	start := len(out)
	conn := s.conn
	if !conn.IsValid() {
		conn = a.session
	}
	if conn.IsValid() && !conn.IsUnspecified() && s.port > 0 {
		out = appendAddr(out, netip.AddrPortFrom(conn, uint16(s.port)))
	}
	for _, c := range s.cands[:s.nc] {
		if len(out)-start == maxSectionAddrs {
			break
		}
		out = appendAddr(out, c)
	}
	return out
}

// live reports whether section i, whose m= port is port, receives media at all: a port
// of 0 rejects it (RFC 3264, 6) unless it is in a BUNDLE group (RFC 9143, 7.3.3).
func (a *sdpAddrs) live(i, port int) bool {
	return port > 0 || i < a.n && a.secs[i].tag >= 0
}

// of returns the addresses section i receives on: its own, then its BUNDLE group's
// tagged section's. The slice is valid until the next call.
func (a *sdpAddrs) of(i int) []netip.AddrPort {
	if i < 0 || i >= a.n {
		return nil
	}
	out := a.own(a.out[:0], i)
	if t := a.secs[i].tag; t >= 0 && t != i {
		out = a.own(out, t)
	}
	return out
}

// appendAddr appends ap unless out holds it already.
func appendAddr(out []netip.AddrPort, ap netip.AddrPort) []netip.AddrPort {
	for _, o := range out {
		if o == ap {
			return out
		}
	}
	return append(out, ap)
}

// mPort reads an m= port: <port>[/<number of ports>], the first port being the RTP port.
func mPort(tok []byte) (int, bool) {
	if i := bytes.IndexByte(tok, '/'); i >= 0 {
		tok = tok[:i]
	}
	n, ok := atoi(tok)
	if !ok || n > 65535 {
		return 0, false
	}
	return n, true
}

// candidateAddr reads the address of a candidate attribute's value (RFC 8839, 5.1):
// <foundation> <component-id> <transport> <priority> <connection-address> <port> typ
// <cand-type> ..., for component 1 only, UDP or TCP, a literal address (not an mDNS name,
// which the capture cannot resolve) and a port other than 0, nor 9 over TCP (an active
// candidate, which receives nothing).
func candidateAddr(v []byte) (netip.AddrPort, bool) {
	var f [6][]byte
	n := 0
	for len(v) > 0 && n < len(f) {
		var tok []byte
		tok, v = nextField(v)
		if len(tok) > 0 {
			f[n] = tok
			n++
		}
	}
	if n < len(f) || !bytes.Equal(f[1], []byte("1")) {
		return netip.AddrPort{}, false
	}
	tcp := bytes.EqualFold(f[2], []byte("tcp"))
	if !tcp && !bytes.EqualFold(f[2], []byte("udp")) {
		return netip.AddrPort{}, false
	}
	port, ok := atoi(f[5])
	if !ok || port == 0 || port > 65535 || tcp && port == 9 {
		return netip.AddrPort{}, false
	}
	addr, err := netip.ParseAddr(string(f[4]))
	if err != nil || addr.IsUnspecified() || addr.Zone() != "" {
		return netip.AddrPort{}, false
	}
	return netip.AddrPortFrom(addr.Unmap(), uint16(port)), true
}
