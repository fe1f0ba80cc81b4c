package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The link emulator runs in the router namespace. Packets the kernel routes
// to a TUN device are read here, dropped at random (seeded), queued in a
// drop-tail queue served at the rate cap, and written back to the same TUN
// after their serialization time plus the one-way delay. The kernel then
// forwards them on (an ip rule sends packets arriving from the TUN devices
// to the main table, so they are not looped back into the emulator).

// linkParams describe one direction of the emulated link.
type linkParams struct {
	Delay    time.Duration `json:"-"`
	DelayMS  float64       `json:"delay_ms"`
	RateKbps float64       `json:"rate_kbps"`
	QueueMS  float64       `json:"queue_ms"`
	LossPct  float64       `json:"loss_pct"`
	Seed     uint64        `json:"seed"`
}

// dirStats counts what one direction did with its packets.
type dirStats struct {
	Name       string  `json:"direction"`
	Received   int64   `json:"received"`
	Lost       int64   `json:"lost_random"`
	QueueDrops int64   `json:"queue_drops"`
	Sent       int64   `json:"sent"`
	Bytes      int64   `json:"bytes_sent"`
	MaxQueueMS float64 `json:"max_queue_ms"`
	WriteErrs  int64   `json:"write_errors"`
}

type direction struct {
	name   string
	fd     int
	p      linkParams
	rng    *rand.Rand
	limit  float64 // queue limit in bytes
	busy   time.Time
	rx     atomic.Int64
	lost   atomic.Int64
	qdrop  atomic.Int64
	tx     atomic.Int64
	txb    atomic.Int64
	werr   atomic.Int64
	mu     sync.Mutex
	maxQ   time.Duration
	outbox chan packet
}

type packet struct {
	b  []byte
	at time.Time
}

func openTun(name string) (int, error) {
	fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("open /dev/net/tun: %w", err)
	}
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	ifr.SetUint16(unix.IFF_TUN | unix.IFF_NO_PI)
	if err := unix.IoctlIfreq(fd, unix.TUNSETIFF, ifr); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("TUNSETIFF %s: %w", name, err)
	}
	return fd, nil
}

func newDirection(name string, fd int, p linkParams, stream uint64) *direction {
	d := &direction{
		name:   name,
		fd:     fd,
		p:      p,
		rng:    rand.New(rand.NewPCG(p.Seed, stream)),
		outbox: make(chan packet, 1<<16),
	}
	if p.RateKbps > 0 {
		d.limit = p.RateKbps * 1000 / 8 * p.QueueMS / 1000
	}
	return d
}

// admit decides the fate of a packet of n bytes arriving at now and, if it
// is kept, returns when it leaves the link.
func (d *direction) admit(n int, now time.Time) (time.Time, bool) {
	d.rx.Add(1)
	if d.p.LossPct > 0 && d.rng.Float64()*100 < d.p.LossPct {
		d.lost.Add(1)
		return time.Time{}, false
	}
	if d.p.RateKbps <= 0 {
		return now.Add(d.p.Delay), true
	}
	start := now
	if d.busy.After(now) {
		start = d.busy
		backlog := d.busy.Sub(now).Seconds() * d.p.RateKbps * 1000 / 8
		if backlog+float64(n) > d.limit {
			d.qdrop.Add(1)
			return time.Time{}, false
		}
	}
	ser := time.Duration(float64(n) * 8 / (d.p.RateKbps * 1000) * float64(time.Second))
	d.busy = start.Add(ser)
	if q := d.busy.Sub(now); q > d.maxQ {
		d.mu.Lock()
		d.maxQ = q
		d.mu.Unlock()
	}
	return d.busy.Add(d.p.Delay), true
}

func (d *direction) readLoop() {
	buf := make([]byte, 65536)
	for {
		n, err := unix.Read(d.fd, buf)
		if err != nil {
			if err == unix.EINTR {
				continue
			}
			fmt.Fprintf(os.Stderr, "emu: read %s: %v\n", d.name, err)
			close(d.outbox)
			return
		}
		if n == 0 {
			continue
		}
		at, ok := d.admit(n, time.Now())
		if !ok {
			continue
		}
		b := make([]byte, n)
		copy(b, buf[:n])
		d.outbox <- packet{b, at}
	}
}

// writeLoop delivers packets in order; with a constant delay the delivery
// times are non-decreasing, so a FIFO is enough.
//
// It sleeps with nanosleep on its own OS thread: time.Sleep wakes through
// the runtime's poller, whose timeouts have millisecond granularity, which
// added 1-2 ms to every delay.
func (d *direction) writeLoop() {
	runtime.LockOSThread()
	for p := range d.outbox {
		for {
			w := time.Until(p.at)
			if w <= 0 {
				break
			}
			ts := unix.NsecToTimespec(int64(w))
			if err := unix.Nanosleep(&ts, nil); err == nil {
				break
			}
		}
		if _, err := unix.Write(d.fd, p.b); err != nil {
			d.werr.Add(1)
			continue
		}
		d.tx.Add(1)
		d.txb.Add(int64(len(p.b)))
	}
}

func (d *direction) stats() dirStats {
	d.mu.Lock()
	mq := d.maxQ
	d.mu.Unlock()
	return dirStats{
		Name: d.name, Received: d.rx.Load(), Lost: d.lost.Load(), QueueDrops: d.qdrop.Load(),
		Sent: d.tx.Load(), Bytes: d.txb.Load(), MaxQueueMS: float64(mq) / 1e6, WriteErrs: d.werr.Load(),
	}
}

func run(name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %v: %v: %s", name, args, err, out)
	}
	return nil
}

// emuMain is the "emu" subcommand, run inside the router namespace.
func emuMain(args []string) error {
	fs := flag.NewFlagSet("emu", flag.ExitOnError)
	delay := fs.Duration("delay", 20*time.Millisecond, "one-way delay added in each direction")
	rate := fs.Float64("rate-kbps", 5000, "rate cap in each direction in kbit/s (0: none)")
	queue := fs.Float64("queue-ms", 100, "drop-tail queue limit, in milliseconds at the rate cap")
	loss := fs.Float64("loss-pct", 0, "random loss in each direction, percent")
	seed := fs.Uint64("seed", 1, "seed of the loss PRNG")
	up := fs.String("up", "tun-up", "TUN device for packets from the impaired host")
	down := fs.String("down", "tun-down", "TUN device for packets to the impaired host")
	upTable := fs.String("up-table", "100", "routing table whose default route is the up TUN")
	downTable := fs.String("down-table", "101", "routing table whose default route is the down TUN")
	statsOut := fs.String("stats-out", "", "write the per-direction counters as JSON here on exit")
	fs.Parse(args)

	p := linkParams{Delay: *delay, DelayMS: float64(*delay) / 1e6, RateKbps: *rate, QueueMS: *queue, LossPct: *loss, Seed: *seed}
	var dirs []*direction
	for i, spec := range []struct{ dev, table string }{{*up, *upTable}, {*down, *downTable}} {
		fd, err := openTun(spec.dev)
		if err != nil {
			return err
		}
		if err := run("ip", "link", "set", spec.dev, "up"); err != nil {
			return err
		}
		if err := run("ip", "route", "replace", "default", "dev", spec.dev, "table", spec.table); err != nil {
			return err
		}
		dirs = append(dirs, newDirection(spec.dev, fd, p, uint64(i)))
	}
	for _, d := range dirs {
		go d.readLoop()
		go d.writeLoop()
	}
	fmt.Printf("ready delay=%v rate=%gkbps queue=%gms loss=%g%% seed=%d\n", *delay, *rate, *queue, *loss, *seed)

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	tick := time.NewTicker(10 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			for _, d := range dirs {
				s := d.stats()
				fmt.Fprintf(os.Stderr, "emu %s: rx=%d lost=%d qdrop=%d tx=%d maxq=%.1fms\n", s.Name, s.Received, s.Lost, s.QueueDrops, s.Sent, s.MaxQueueMS)
			}
		case <-sig:
			out := struct {
				Params     linkParams `json:"params"`
				Directions []dirStats `json:"directions"`
			}{Params: p}
			for _, d := range dirs {
				out.Directions = append(out.Directions, d.stats())
			}
			b, _ := json.MarshalIndent(out, "", "  ")
			if *statsOut != "" {
				if err := os.WriteFile(*statsOut, append(b, '\n'), 0o644); err != nil {
					return err
				}
			} else {
				fmt.Println(string(b))
			}
			return nil
		}
	}
}
