package report

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

const chromium = "/usr/bin/chromium"

// browserDataDir makes a fresh user data directory for one browser, and
// registers its removal, after killing any helper process of that browser
// that outlived it (they carry the unique directory in their command line).
func browserDataDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "report-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		flag := "--user-data-dir=" + dir
		deadline := time.Now().Add(5 * time.Second)
		for quiet := 0; quiet < 3 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if pids := processesWithArg(flag); len(pids) > 0 {
				quiet = 0
				for _, pid := range pids {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			} else {
				quiet++
			}
		}
		for {
			err := os.RemoveAll(dir)
			if err == nil || time.Now().After(deadline) {
				if err != nil {
					t.Errorf("removing the browser's data directory: %v", err)
				}
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if pids := processesWithArg(flag); len(pids) > 0 {
			t.Errorf("browser processes %v outlived the test", pids)
		}
	})
	return dir
}

// processesWithArg lists the processes that have arg on their command line.
func processesWithArg(arg string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		for _, a := range bytes.Split(cmdline, []byte{0}) {
			if string(a) == arg {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

type pageFigure struct {
	ID       string  `json:"id"`
	Complete bool    `json:"complete"`
	NatW     float64 `json:"nw"`
	NatH     float64 `json:"nh"`
	W        float64 `json:"w"`
	H        float64 `json:"h"`
	Alt      string  `json:"alt"`
	Caption  string  `json:"caption"`
}

const figuresJS = `[...document.querySelectorAll('figure')].map(f => {
	const i = f.querySelector('img'), c = f.querySelector('figcaption');
	const r = i ? i.getBoundingClientRect() : {width: 0, height: 0};
	return {id: f.id, complete: !!(i && i.complete), nw: i ? i.naturalWidth : 0, nh: i ? i.naturalHeight : 0,
		w: r.width, h: r.height, alt: i ? i.alt : '', caption: c ? c.textContent : ''};
})`

// TestBrowser opens report.html in headless Chromium and checks that it
// loads without errors or exceptions, fetches nothing but the page, and
// displays every figure.
func TestBrowser(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("no Chromium at %s (apt-get install chromium): %v", chromium, err)
	}
	dir := t.TempDir()
	writeCampaign(t, dir)
	r, err := Generate(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkInBrowser(t, r, 14)
}

// The report of a simulated campaign on the FB-2009 trace renders in
// headless Chromium (its numbers are checked by TestRealSim).
func TestBrowserFB2009Sim(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("no Chromium at %s (apt-get install chromium): %v", chromium, err)
	}
	dir := t.TempDir()
	simCampaign(t, dir)
	r, err := Generate(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkInBrowser(t, r, 7)
}

// checkInBrowser opens a report's page in headless Chromium and checks it
// shows its want figures without errors.
func checkInBrowser(t *testing.T, r *Report, want int) {
	t.Helper()

	var mu sync.Mutex
	var served []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		served = append(served, req.URL.Path)
		mu.Unlock()
		if req.URL.Path != "/report.html" {
			http.NotFound(w, req)
			return
		}
		http.ServeFile(w, req, r.HTMLPath)
	}))
	defer srv.Close()

	dataDir := browserDataDir(t)
	// the deadline bounds the whole browser, its start included
	bctx, bcancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(bcancel)
	actx, acancel := chromedp.NewExecAllocator(bctx,
		chromedp.ExecPath(chromium),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(dataDir),
		chromedp.WindowSize(1280, 1000),
	)
	t.Cleanup(acancel) // kills the browser and waits for it, even on failure
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)

	var problems, requests []string
	// Listen starts the browser; the runtime, log and network domains are
	// enabled from the start
	err := chromedp.Listen(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				problems = append(problems, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
			}
		case *runtime.EventExceptionThrown:
			problems = append(problems, "exception: "+(&chromedp.ExceptionError{ExceptionDetails: ev.ExceptionDetails}).Error())
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				problems = append(problems, fmt.Sprintf("log %s: %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL))
			}
		case *network.EventRequestWillBeSent:
			requests = append(requests, ev.Request.URL)
		case *network.EventLoadingFailed:
			problems = append(problems, "loading failed: "+ev.ErrorText)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.Navigate(srv.URL+"/report.html"),
		chromedp.WaitReady(chromedp.CSS("body")),
		chromedp.Poll[chromedp.Void](`[...document.images].every(i => i.complete)`, chromedp.WithPollingTimeout(10*time.Second)),
	)
	if err != nil {
		t.Fatal(err)
	}
	figs, err := chromedp.Run(ctx, chromedp.Evaluate[[]pageFigure](figuresJS))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // let late console messages arrive
	wantFigs := r.Figures()
	if len(figs) != len(wantFigs) || len(wantFigs) != want {
		t.Errorf("the page shows %d figures, want %d (report has %d)", len(figs), want, len(wantFigs))
	}
	for i, f := range figs {
		if !f.Complete || f.NatW <= 0 || f.NatH <= 0 || f.W <= 0 || f.H <= 0 {
			t.Errorf("figure %s not displayed: %+v", f.ID, f)
		}
		if f.Alt == "" || !strings.Contains(f.Caption, "Figure "+strconv.Itoa(i+1)+".") {
			t.Errorf("figure %s lacks alt text or caption: %+v", f.ID, f)
		}
		if i < len(wantFigs) && f.ID != wantFigs[i].ID {
			t.Errorf("figure %d is %s, want %s", i, f.ID, wantFigs[i].ID)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Error(p)
	}
	for _, u := range requests {
		if u != srv.URL+"/report.html" && !strings.HasPrefix(u, "data:") {
			t.Errorf("the page requested %s", u)
		}
	}
	for _, p := range served {
		if p != "/report.html" {
			t.Errorf("the server was asked for %s", p)
		}
	}
}
