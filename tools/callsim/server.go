package main

import (
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"
)

//go:embed page.html
var pageHTML []byte

// mailbox holds the signalling messages for one page until it polls.
type mailbox struct {
	mu   sync.Mutex
	msgs map[string][]json.RawMessage
	wake map[string]chan struct{}
}

func (m *mailbox) put(to string, msg json.RawMessage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.msgs[to] = append(m.msgs[to], msg)
	if c, ok := m.wake[to]; ok {
		close(c)
		delete(m.wake, to)
	}
}

// take waits up to d for messages to role and returns them.
func (m *mailbox) take(role string, d time.Duration) []json.RawMessage {
	deadline := time.After(d)
	for {
		m.mu.Lock()
		if msgs := m.msgs[role]; len(msgs) > 0 {
			m.msgs[role] = nil
			m.mu.Unlock()
			return msgs
		}
		c, ok := m.wake[role]
		if !ok {
			c = make(chan struct{})
			m.wake[role] = c
		}
		m.mu.Unlock()
		select {
		case <-c:
		case <-deadline:
			return nil
		}
	}
}

// pageConfig is what a page learns about its role from the server.
type pageConfig struct {
	Role       string      `json:"role"`
	IceServers []iceServer `json:"iceServers"`
	Policy     string      `json:"iceTransportPolicy"`
	Width      int         `json:"width"`
	Height     int         `json:"height"`
	FPS        int         `json:"fps"`
	SendVideo  bool        `json:"sendVideo"`
}

type iceServer struct {
	URLs       []string `json:"urls"`
	Username   string   `json:"username,omitempty"`
	Credential string   `json:"credential,omitempty"`
}

// serveMain is the "serve" subcommand, run in the router namespace: it
// serves the call page, relays signalling between the two pages by HTTP
// long-poll, and writes each getStats post as one JSON line.
func serveMain(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	addr := fs.String("addr", serverAddr+":"+serverPort, "listen address")
	statsPath := fs.String("stats", "stats.jsonl", "file the getStats posts are appended to")
	logPath := fs.String("page-log", "", "file the pages' log lines are appended to (default: standard error)")
	callerTurn := fs.String("caller-turn", "", "TURN URL for the caller (sets iceTransportPolicy relay)")
	turnUser := fs.String("turn-user", "callsim", "TURN username")
	turnPass := fs.String("turn-pass", "callsim", "TURN password")
	calleeVideo := fs.Bool("callee-video", true, "the callee sends video too")
	fs.Parse(args)

	stats, err := os.OpenFile(*statsPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer stats.Close()
	var logw io.Writer = os.Stderr
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		logw = f
	}
	var mu sync.Mutex
	box := &mailbox{msgs: map[string][]json.RawMessage{}, wake: map[string]chan struct{}{}}

	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(pageHTML)
	})
	mux.HandleFunc("GET /config", func(w http.ResponseWriter, r *http.Request) {
		role := r.URL.Query().Get("role")
		c := pageConfig{Role: role, IceServers: []iceServer{}, Policy: "all", Width: 1280, Height: 720, FPS: 30, SendVideo: true}
		if role == "caller" && *callerTurn != "" {
			c.IceServers = []iceServer{{URLs: []string{*callerTurn}, Username: *turnUser, Credential: *turnPass}}
			c.Policy = "relay"
		}
		if role == "callee" {
			c.SendVideo = *calleeVideo
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(c)
	})
	mux.HandleFunc("POST /send", func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil || !json.Valid(b) {
			http.Error(w, "bad message", http.StatusBadRequest)
			return
		}
		box.put(r.URL.Query().Get("to"), b)
	})
	mux.HandleFunc("GET /recv", func(w http.ResponseWriter, r *http.Request) {
		msgs := box.take(r.URL.Query().Get("role"), 20*time.Second)
		if msgs == nil {
			msgs = []json.RawMessage{}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(msgs)
	})
	mux.HandleFunc("POST /stats", func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		b, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
		var body map[string]any
		if err != nil || json.Unmarshal(b, &body) != nil {
			http.Error(w, "bad stats", http.StatusBadRequest)
			return
		}
		body["wall"] = now.UTC().Format(time.RFC3339Nano)
		body["unix_ms"] = now.UnixMilli()
		line, _ := json.Marshal(body)
		mu.Lock()
		stats.Write(append(line, '\n'))
		mu.Unlock()
	})
	mux.HandleFunc("POST /log", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		mu.Lock()
		fmt.Fprintf(logw, "%s %s %s\n", time.Now().UTC().Format("15:04:05.000"), r.URL.Query().Get("role"), b)
		mu.Unlock()
	})
	fmt.Printf("serving on http://%s/\n", *addr)
	return http.ListenAndServe(*addr, mux)
}
