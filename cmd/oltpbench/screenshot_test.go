package main

import (
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The HTML report, rendered by a real browser (headless Chromium), shows
// every version's lines: the screenshot holds enough pixels of each
// version's colour. An HTML whose charts had no data would not. Two
// versions, then four (the release history).
func TestHTMLReportInChromium(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium not installed: scripts/test.sh installs it")
		}
		t.Skip("chromium not installed")
	}
	needServer(t) // the built binary
	// The line colours of render.go, version by version.
	colors := [][3]int{{0x1f, 0x77, 0xb4}, {0xd6, 0x27, 0x28}, {0x2c, 0xa0, 0x2c}, {0xff, 0x7f, 0x0e}}
	for _, c := range []struct {
		name string
		args []string
		min  int
	}{
		{"two", []string{"--baseline=" + legacy + "/v2.1", "--candidate=" + legacy + "/v3.0"}, 2500}, // the legends alone are about 600 each
		{"four", []string{history + "/v1", history + "/v2", history + "/v3", history + "/v4"}, 2500},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := pixels(t, browser, append([]string{"report", "compare", "--format=html"}, c.args...), colors[:len(c.args)])
			t.Logf("pixels %v", n)
			for i, k := range n {
				if k < c.min {
					t.Errorf("the rendered charts show %d pixels of version %d's colour: %v", k, i+1, n)
				}
			}
		})
	}
}

// pixels renders the report of args in the browser and counts the pixels
// of each colour.
func pixels(t *testing.T, browser string, args []string, want [][3]int) []int {
	dir := t.TempDir()
	r := ob(t, nil, args...)
	mustOK(t, r, "compare --format=html")
	page := filepath.Join(dir, "report.html")
	os.WriteFile(page, []byte(r.stdout), 0o644)
	shot := filepath.Join(dir, "shot.png")
	cmd := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1100,2400",
		"--screenshot="+shot, "file://"+page)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, out)
	}
	if os.Getenv("OLTPBENCH_KEEP_SHOT") != "" {
		data, _ := os.ReadFile(shot)
		os.WriteFile(os.Getenv("OLTPBENCH_KEEP_SHOT")+"-"+filepath.Base(t.Name())+".png", data, 0o644)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	n := make([]int, len(want))
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			for i, c := range want {
				if near(int(r>>8), c[0]) && near(int(g>>8), c[1]) && near(int(bl>>8), c[2]) {
					n[i]++
				}
			}
		}
	}
	return n
}

func near(a, b int) bool { return a-b < 24 && b-a < 24 }

// TestHistoryHTMLInChromium: report history's HTML, rendered by a real
// browser, shows each series' line and its changes' marks: pixels of the
// line's colour and of the marks' (none without a change to mark).
func TestHistoryHTMLInChromium(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium not installed: scripts/test.sh installs it")
		}
		t.Skip("chromium not installed")
	}
	needServer(t) // the built binary
	// The line in html.go's first colour, the marks in compare.MarkColor.
	line, mark := [3]int{0x1f, 0x77, 0xb4}, [3]int{0xd6, 0x27, 0x28}
	changed := pixels(t, browser, []string{"report", "history", "--format=html", history + "/v1", history + "/v2", history + "/v3", history + "/v4"}, [][3]int{line, mark})
	steady := pixels(t, browser, []string{"report", "history", "--format=html", history + "/v1", history + "/v2"}, [][3]int{line, mark})
	t.Logf("pixels: with changes %v, without %v", changed, steady)
	if changed[0] < 1500 || changed[1] < 400 || steady[0] < 1500 || steady[1] > 50 {
		t.Errorf("line and mark pixels: with changes %v, without %v", changed, steady)
	}
}
