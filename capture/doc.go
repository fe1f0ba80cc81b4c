// Package capture reads packet captures and decodes each frame in place down to its UDP or
// TCP payload.
//
// Open detects the format by content, never by file name: classic pcap (microsecond and
// nanosecond, either byte order), pcapng (several interfaces of different link types and
// timestamp resolutions, several sections, interface statistics), each optionally inside
// gzip or zstd. Reader.Next fills a Packet: capture time, interface, original and captured
// lengths, and the decoded link layer (Ethernet with any number of VLAN tags, Linux cooked
// SLL and SLL2, raw IP, BSD NULL and LOOP), IPv4 (options, fragments reassembled), IPv6
// (extension headers, fragments reassembled), UDP and TCP (flags, window, SACK blocks).
//
// The contract:
//
//   - Packet data is valid until the next call to Next: Data points into the reader's
//     buffer and Payload into Data or into a reassembly buffer. Copy what must outlive it,
//     or make the reader hold its buffers until released (Reader.Hold), to hand packets to
//     another goroutine without copying.
//   - Next allocates nothing per packet in the steady state and reads in 1 MiB chunks.
//   - Every record gives exactly one Packet, so counts match capinfos. A reassembled
//     datagram is returned on the record of the fragment that completed it (Reassembled,
//     WireLen the sum of all its fragments' frames); the other fragments come back as
//     KindIPOther with Fragment set. FrameLen is always the record's own original length.
//   - For UDP and TCP packets HeaderLen + PayloadLen == WireLen: link, IP and transport
//     headers, Ethernet padding and the repeated headers of fragments count as header
//     bytes.
//   - A malformed frame is data, never an error: it comes back as KindUndecodable. Next
//     returns io.EOF at the clean end of the file, an error wrapping ErrTruncated when the
//     file ends mid-record and ErrCorrupt when a block is damaged; the packets already
//     read remain good. Lengths are checked before they are used: no length field makes the
//     reader allocate more than the data actually present (and never above 64 MiB).
//   - Fragment reassembly is bounded: 64 KiB per datagram, 1024 pending datagrams, 16 MiB
//     of pending fragment data, 30 s of capture time before an incomplete datagram expires.
//
// Example:
//
//	r, err := capture.Open(f)
//	if err != nil {
//		return err // errors.Is(err, capture.ErrNotCapture) ...
//	}
//	defer r.Close()
//	var p capture.Packet
//	for {
//		err := r.Next(&p)
//		if err == io.EOF {
//			break
//		} else if err != nil {
//			return err // ErrTruncated: report what was read, with a warning
//		}
//		if p.Kind == capture.KindUDP {
//			use(p.SrcAddrPort(), p.DstAddrPort(), p.Payload)
//		}
//	}
package capture
