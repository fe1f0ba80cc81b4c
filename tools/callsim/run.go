package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

var scenarioNames = map[int]string{
	1: "p2p-udp",
	2: "turn-tcp",
	3: "p2p-udp-loss",
	4: "turn-tcp-loss",
}

type tcpdumpResult struct {
	Vantage string `json:"vantage"`
	File    string `json:"file"`
	Stderr  string `json:"tcpdump_stderr"`
}

type runRecord struct {
	Name       string            `json:"name"`
	Scenario   int               `json:"scenario"`
	Meaning    string            `json:"meaning"`
	RTTms      int               `json:"rtt_ms"`
	OneWayMS   float64           `json:"one_way_delay_ms"`
	RateKbps   float64           `json:"rate_kbps"`
	QueueMS    float64           `json:"queue_ms"`
	LossPct    float64           `json:"loss_pct"`
	Seed       uint64            `json:"seed"`
	Duration   string            `json:"media_duration"`
	UDPBlocked bool              `json:"caller_udp_blocked"`
	CallerTurn string            `json:"caller_turn_url,omitempty"`
	Addresses  map[string]string `json:"addresses"`
	Versions   map[string]string `json:"versions"`
	Started    string            `json:"started"`
	MediaStart string            `json:"media_start"`
	Ended      string            `json:"ended"`
	Files      map[string]string `json:"files"`
	Captures   []tcpdumpResult   `json:"captures"`
	Emulator   json.RawMessage   `json:"emulator,omitempty"`
	NFT        string            `json:"nft_counters,omitempty"`
	Summary    *runSummary       `json:"getstats_summary,omitempty"`
	Camera     string            `json:"camera"`
	// Machine load while the media flowed: other work on the machine
	// competes with the browsers' encoders and the emulator.
	LoadAvgStart string  `json:"loadavg_media_start"`
	LoadAvgEnd   string  `json:"loadavg_media_end"`
	CPUBusyPct   float64 `json:"cpu_busy_pct_during_media"`
}

var meanings = map[int]string{
	1: "P2P over UDP, no loss",
	2: "TURN over TCP, caller's UDP blocked, no loss",
	3: "P2P over UDP, 0.5% random loss each way on the caller's link",
	4: "TURN over TCP, caller's UDP blocked, 0.5% random loss each way on the caller's link",
}

func runMain(args []string) (err error) {
	fs := flag.NewFlagSet("callsim", flag.ExitOnError)
	scenario := fs.Int("scenario", 1, "1 P2P/UDP, 2 TURN/TCP (UDP blocked), 3 P2P/UDP with loss, 4 TURN/TCP with loss")
	rtt := fs.Int("rtt", 40, "round-trip time added on the caller's link, ms (half each way)")
	seed := fs.Uint64("seed", 1, "seed of the emulator's loss PRNG")
	out := fs.String("out", "", "directory for the captures, stats and run record (required)")
	dur := fs.Duration("duration", 70*time.Second, "media duration, from the caller's first video bytes")
	name := fs.String("name", "", "file name prefix (default s<N>-<scenario>-rtt<RTT>)")
	work := fs.String("work", filepath.Join(os.TempDir(), "callsim"), "scratch directory: the fake camera file and browser profiles")
	rate := fs.Float64("rate-kbps", 5000, "bottleneck rate each way on the caller's link")
	queue := fs.Float64("queue-ms", 100, "bottleneck queue, ms at the rate")
	lossFlag := fs.Float64("loss-pct", -1, "random loss each way on the caller's link (default 0.5 in scenarios 3 and 4, else 0)")
	calleeVideo := fs.Bool("callee-video", false, "the callee sends video too (two 720p encoders need ~75% of two cores)")
	keep := fs.Bool("keep", false, "leave the namespaces up afterwards (for inspection)")
	fs.Parse(args)
	if *out == "" {
		return errors.New("-out is required")
	}
	if scenarioNames[*scenario] == "" {
		return fmt.Errorf("-scenario %d: want 1-4", *scenario)
	}
	if os.Geteuid() != 0 {
		return errors.New("run as root (namespaces, TUN devices, tcpdump)")
	}
	turnScn := *scenario == 2 || *scenario == 4
	loss := *lossFlag
	if loss < 0 {
		loss = 0
		if *scenario >= 3 {
			loss = 0.5
		}
	}
	if *name == "" {
		*name = fmt.Sprintf("s%d-%s-rtt%d", *scenario, scenarioNames[*scenario], *rtt)
	}
	for _, d := range []string{*out, *work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	path := func(suffix string) string { return filepath.Join(*out, *name+suffix) }
	rec := runRecord{
		Name: *name, Scenario: *scenario, Meaning: meanings[*scenario], RTTms: *rtt, OneWayMS: float64(*rtt) / 2,
		RateKbps: *rate, QueueMS: *queue, LossPct: loss, Seed: *seed, Duration: dur.String(), UDPBlocked: turnScn,
		Addresses: map[string]string{"caller": callerAddr, "callee": calleeAddr, "turn": turnAddr, "server": serverAddr + ":" + serverPort},
		Files:     map[string]string{},
		Versions: map[string]string{
			"chromium": version("chromium", "--version"),
			"coturn":   version("turnserver", "--version"),
			"tcpdump":  version("tcpdump", "--version"),
			"kernel":   version("uname", "-r"),
			"go":       runtime.Version(),
		},
		Started: time.Now().UTC().Format(time.RFC3339Nano),
	}
	if v := strings.Split(rec.Versions["tcpdump"], "\n"); len(v) > 0 {
		rec.Versions["tcpdump"] = version("sh", "-c", "tcpdump --version 2>&1 | head -2 | tr '\\n' ' '")
	}

	cam := filepath.Join(*work, "cam-1280x720-30.y4m")
	if err := makeCamera(cam); err != nil {
		return err
	}
	rec.Camera = "ffmpeg lavfi testsrc2=size=1280x720:rate=30, noise=alls=12:allf=t+u, 5 s, looped by Chromium"

	logf, err := os.Create(path("-harness.log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	logw := io.MultiWriter(logf, os.Stderr)
	say := func(f string, a ...any) { fmt.Fprintf(logw, time.Now().Format("15:04:05.000 ")+f+"\n", a...) }

	defer func() {
		stopAll()
		if !*keep {
			teardown()
		}
	}()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		s := <-sigs
		say("%v: stopping", s)
		stopAll()
		if !*keep {
			teardown()
		}
		os.Exit(1)
	}()

	say("setting up namespaces (scenario %d, %s, rtt %d ms, loss %g%%, seed %d)", *scenario, meanings[*scenario], *rtt, loss, *seed)
	if err := setup(turnScn); err != nil {
		return err
	}

	// The link emulator.
	emuStats := path("-emu.json")
	pr, pw := io.Pipe()
	_, err = start("emulator", pw, logw, "ip", "netns", "exec", nsRouter, exe, "emu",
		"-delay", fmt.Sprintf("%dms", *rtt/2), "-rate-kbps", fmt.Sprint(*rate), "-queue-ms", fmt.Sprint(*queue),
		"-loss-pct", fmt.Sprint(loss), "-seed", fmt.Sprint(*seed), "-stats-out", emuStats)
	if err != nil {
		return err
	}
	if err := waitLine(pr, logw, "ready", 10*time.Second); err != nil {
		return fmt.Errorf("emulator: %w", err)
	}
	if err := nsx(nsCaller, "ping", "-c", "1", "-W", "2", calleeAddr); err != nil {
		return fmt.Errorf("caller cannot reach callee through the emulator: %w", err)
	}

	// coturn.
	turnURL := ""
	if turnScn {
		turnURL = "turn:" + turnAddr + ":3478?transport=tcp"
		rec.CallerTurn = turnURL
		tl, err := os.Create(path("-turnserver.log"))
		if err != nil {
			return err
		}
		defer tl.Close()
		_, err = start("turnserver", tl, tl, "ip", "netns", "exec", nsTurn, "turnserver", "-n",
			"--listening-ip="+turnAddr, "--relay-ip="+turnAddr, "--listening-port=3478",
			"--lt-cred-mech", "--user=callsim:callsim", "--realm=callsim", "--fingerprint",
			"--no-tls", "--no-dtls", "--no-cli", "--no-stun-backward-compatibility",
			"--allowed-peer-ip=10.10.0.0-10.10.255.255", "--log-file=stdout", "--simple-log",
			"--min-port=49152", "--max-port=65535")
		if err != nil {
			return err
		}
		rec.Files["turnserver_log"] = filepath.Base(path("-turnserver.log"))
		if err := waitListen(nsTurn, "3478", 15*time.Second); err != nil {
			return fmt.Errorf("turnserver: %w", err)
		}
	}

	// The page server.
	statsPath := path("-stats.jsonl")
	os.Remove(statsPath)
	os.Remove(path("-page.log"))
	pr2, pw2 := io.Pipe()
	srvArgs := []string{"ip", "netns", "exec", nsRouter, exe, "serve", "-stats", statsPath, "-page-log", path("-page.log"),
		fmt.Sprintf("-callee-video=%v", *calleeVideo)}
	if turnScn {
		srvArgs = append(srvArgs, "-caller-turn", turnURL)
	}
	_, err = start("server", pw2, logw, srvArgs...)
	if err != nil {
		return err
	}
	if err := waitLine(pr2, logw, "serving", 10*time.Second); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	rec.Files["stats"] = filepath.Base(statsPath)
	rec.Files["page_log"] = filepath.Base(path("-page.log"))

	// Captures, before the browsers.
	type capt struct {
		p             *proc
		vantage, file string
		stderr        *strings.Builder
	}
	var capts []capt
	vantages := []struct{ ns, vantage, suffix string }{{nsCaller, "caller", "-caller.pcap"}}
	if turnScn {
		vantages = append(vantages, struct{ ns, vantage, suffix string }{nsTurn, "turn-server", "-turn.pcap"})
	}
	for _, v := range vantages {
		file := path(v.suffix)
		os.Remove(file)
		r, w := io.Pipe()
		sb := &strings.Builder{}
		p, err := start("tcpdump-"+v.vantage, io.Discard, w, "ip", "netns", "exec", v.ns,
			"tcpdump", "-i", "any", "-s", "0", "-U", "-Z", "root", "-w", file)
		if err != nil {
			return err
		}
		if err := waitLine(r, sb, "listening on", 10*time.Second); err != nil {
			return fmt.Errorf("tcpdump %s: %w", v.vantage, err)
		}
		capts = append(capts, capt{p, v.vantage, file, sb})
		rec.Files[v.vantage+"_pcap"] = filepath.Base(file)
	}
	time.Sleep(time.Second)

	// The browsers: callee first, then the caller, which makes the offer.
	origin := "http://" + serverAddr + ":" + serverPort
	var browsers []*proc
	for _, b := range []struct{ role, ns string }{{"callee", nsCallee}, {"caller", nsCaller}} {
		prof := filepath.Join(*work, "profile-"+b.role)
		os.RemoveAll(prof)
		bl, err := os.Create(path("-chromium-" + b.role + ".log"))
		if err != nil {
			return err
		}
		defer bl.Close()
		p, err := start("chromium-"+b.role, bl, bl, "ip", "netns", "exec", b.ns, "chromium",
			"--headless=new", "--no-sandbox", "--no-first-run", "--no-default-browser-check",
			"--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
			"--use-file-for-fake-video-capture="+cam,
			"--unsafely-treat-insecure-origin-as-secure="+origin,
			"--disable-features=WebRtcHideLocalIpsWithMdns",
			"--autoplay-policy=no-user-gesture-required",
			"--disable-background-timer-throttling", "--disable-renderer-backgrounding",
			// No background traffic (updates, sign-in, DNS) in the captures.
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--disable-domain-reliability", "--no-pings", "--disable-breakpad",
			// No name lookups. The rules map IP literals too, and WebRTC
			// resolves the TURN server's address through them: exclude both.
			"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE "+serverAddr+", EXCLUDE "+turnAddr,
			"--user-data-dir="+prof,
			origin+"/?role="+b.role)
		if err != nil {
			return err
		}
		browsers = append(browsers, p)
		say("started chromium %s in %s", b.role, b.ns)
		time.Sleep(2 * time.Second)
	}

	// Wait for the caller's first video bytes, then record for -duration.
	mediaStart, err := waitMedia(statsPath, 60*time.Second)
	if err != nil {
		return err
	}
	rec.MediaStart = mediaStart.UTC().Format(time.RFC3339Nano)
	say("media flowing; recording %v", *dur)
	rec.LoadAvgStart = loadavg()
	tot0, idle0 := cpuTimes()
	end := mediaStart.Add(*dur)
	for time.Now().Before(end) {
		time.Sleep(min(10*time.Second, time.Until(end)))
		if lines, err := readStats(statsPath); err == nil {
			s := summarize(*name, lines)
			say("t=%.0fs caller video last30s=%.0f kbit/s pair=%s rtx=%.0f nack=%.0f lost(callee)=%.0f sent=%s",
				s.MediaSeconds, s.SendKbps30, s.Pair, s.RtxSent, s.NACKs, s.LostCallee, s.Resolution)
		}
	}

	rec.LoadAvgEnd = loadavg()
	if tot1, idle1 := cpuTimes(); tot1 > tot0 {
		rec.CPUBusyPct = 100 * (1 - (idle1-idle0)/(tot1-tot0))
	}
	say("machine load: %s -> %s, CPU busy %.0f%%", rec.LoadAvgStart, rec.LoadAvgEnd, rec.CPUBusyPct)

	// Stop: browsers, then captures, then the rest.
	for i := len(browsers) - 1; i >= 0; i-- {
		browsers[i].stop(syscall.SIGTERM, 5*time.Second)
	}
	rec.Ended = time.Now().UTC().Format(time.RFC3339Nano)
	time.Sleep(500 * time.Millisecond)
	if turnScn {
		if o, err := exec.Command("ip", "netns", "exec", nsRouter, "nft", "list", "table", "inet", "callsim").CombinedOutput(); err == nil {
			rec.NFT = string(o)
		}
	}
	for _, c := range capts {
		c.p.stop(syscall.SIGINT, 10*time.Second)
		time.Sleep(100 * time.Millisecond)
		rec.Captures = append(rec.Captures, tcpdumpResult{c.vantage, filepath.Base(c.file), strings.TrimSpace(c.stderr.String())})
	}
	stopAll()
	if b, err := os.ReadFile(emuStats); err == nil {
		rec.Emulator = b
		rec.Files["emulator"] = filepath.Base(emuStats)
	}
	if lines, err := readStats(statsPath); err == nil {
		s := summarize(*name, lines)
		s.CPUBusyPct = rec.CPUBusyPct
		rec.Summary = &s
		fmt.Fprint(logw, summaryHeader+s.row())
	}
	b, _ := json.MarshalIndent(rec, "", "  ")
	say("done: %s", path("-run.json"))
	return os.WriteFile(path("-run.json"), append(b, '\n'), 0o644)
}
