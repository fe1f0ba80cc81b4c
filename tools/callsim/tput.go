package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"time"
)

// tputMain is a minimal iperf: a listener that discards what it receives
// and reports the rate, and a client that sends for a while.
func tputMain(args []string) error {
	fs := flag.NewFlagSet("tput", flag.ExitOnError)
	listen := fs.String("listen", "", "address to listen on")
	connect := fs.String("connect", "", "address to send to")
	dur := fs.Duration("for", 5*time.Second, "how long the client sends")
	fs.Parse(args)
	switch {
	case *listen != "":
		l, err := net.Listen("tcp", *listen)
		if err != nil {
			return err
		}
		for {
			c, err := l.Accept()
			if err != nil {
				return err
			}
			go func() {
				defer c.Close()
				t0 := time.Now()
				n, _ := io.Copy(io.Discard, c)
				d := time.Since(t0)
				fmt.Printf("received %d bytes in %v: %.0f kbit/s\n", n, d.Round(time.Millisecond), float64(n)*8/d.Seconds()/1000)
			}()
		}
	case *connect != "":
		c, err := net.Dial("tcp", *connect)
		if err != nil {
			return err
		}
		buf := make([]byte, 64<<10)
		t0 := time.Now()
		var n int64
		for time.Since(t0) < *dur {
			m, err := c.Write(buf)
			n += int64(m)
			if err != nil {
				return err
			}
		}
		c.Close()
		d := time.Since(t0)
		fmt.Printf("sent %d bytes in %v: %.0f kbit/s\n", n, d.Round(time.Millisecond), float64(n)*8/d.Seconds()/1000)
		return nil
	}
	return fmt.Errorf("tput: -listen or -connect")
}
