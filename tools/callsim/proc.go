package main

// The processes a run starts and waits for, and what it reads of the machine.

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is a child process started in its own session, so that it and
// everything it starts can be signalled as one process group.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has been waited for
}

func start(name string, stdout, stderr io.Writer, argv ...string) (*proc, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); close(p.done) }()
	live.Lock()
	live.procs = append(live.procs, p)
	live.Unlock()
	return p, nil
}

// live lists every process started, so that an interrupted run can stop
// them (they run in their own sessions and would outlive the runner).
var live struct {
	sync.Mutex
	procs []*proc
}

// stopAll stops every live process, newest first.
func stopAll() {
	live.Lock()
	ps := live.procs
	live.procs = nil
	live.Unlock()
	for i := len(ps) - 1; i >= 0; i-- {
		ps[i].stop(syscall.SIGTERM, 5*time.Second)
	}
}

// stop signals the process group and waits, escalating to SIGKILL. It
// does nothing if the process has already exited.
func (p *proc) stop(sig syscall.Signal, wait time.Duration) {
	if p == nil {
		return
	}
	select {
	case <-p.done:
		return
	default:
	}
	pg := -p.cmd.Process.Pid
	syscall.Kill(pg, sig)
	select {
	case <-p.done:
	case <-time.After(wait):
		fmt.Fprintf(os.Stderr, "callsim: %s did not stop in %v: SIGKILL\n", p.name, wait)
		syscall.Kill(pg, syscall.SIGKILL)
		<-p.done
	}
}

// waitLine waits until r yields a line containing want; the rest of r is
// copied to w.
func waitLine(r io.Reader, w io.Writer, want string, timeout time.Duration) error {
	found := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(r)
		seen := false
		for sc.Scan() {
			fmt.Fprintln(w, sc.Text())
			if !seen && strings.Contains(sc.Text(), want) {
				seen = true
				close(found)
			}
		}
	}()
	select {
	case <-found:
		return nil
	case <-time.After(timeout):
		return fmt.Errorf("no %q within %v", want, timeout)
	}
}

func version(argv ...string) string {
	out, _ := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	s := strings.TrimSpace(string(out))
	// The chromium wrapper script may print shell noise first.
	if lines := strings.Split(s, "\n"); len(lines) > 0 {
		s = strings.TrimSpace(lines[len(lines)-1])
	}
	return s
}

// cpuTimes reads the machine's total and idle jiffies from /proc/stat.
func cpuTimes() (total, idle float64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	f := strings.Fields(strings.SplitN(string(b), "\n", 2)[0])
	for i, x := range f[1:] {
		var v float64
		fmt.Sscan(x, &v)
		total += v
		if i == 3 || i == 4 { // idle, iowait
			idle += v
		}
	}
	return total, idle
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.TrimSpace(string(b))
}

// waitMedia polls the stats file until the caller reports video bytes sent.
func waitMedia(statsPath string, timeout time.Duration) (time.Time, error) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		time.Sleep(500 * time.Millisecond)
		lines, _ := readStats(statsPath)
		for _, l := range lines {
			if l.Role != "caller" {
				continue
			}
			for _, o := range l.Outbound {
				if o.Kind == "video" && o.BytesSent > 0 {
					return time.UnixMilli(l.UnixMS), nil
				}
			}
		}
	}
	return time.Time{}, fmt.Errorf("no video from the caller within %v (see the -page.log and -chromium-*.log files)", timeout)
}

// makeCamera writes the fake camera: 1280x720 at 30 fps with motion and
// texture (testsrc2 plus temporal noise), so the encoder wants more than
// the 2.5 Mbit/s a 720p VP8 stream is capped at.
func makeCamera(path string) error {
	if st, err := os.Stat(path); err == nil && st.Size() > 0 {
		return nil
	}
	tmp := path + ".tmp.y4m"
	err := sh("ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi",
		"-i", "testsrc2=size=1280x720:rate=30", "-vf", "noise=alls=12:allf=t+u,format=yuv420p",
		"-t", "5", tmp)
	if err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// waitListen waits until something listens on TCP port in namespace ns.
func waitListen(ns, port string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		out, _ := exec.Command("ip", "netns", "exec", ns, "ss", "-Hltn", "sport = :"+port).Output()
		if strings.TrimSpace(string(out)) != "" {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("nothing listens on tcp port %s after %v", port, timeout)
}
