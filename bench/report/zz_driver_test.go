package report

import (
	"os"
	"testing"
	"time"
)

func TestDriver(t *testing.T) {
	dir := os.Getenv("DRV_DIR")
	if dir == "" {
		t.Skip()
	}
	t0 := time.Now()
	r, err := Generate(dir, Options{OutDir: os.Getenv("DRV_OUT")})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(r.HTMLPath, time.Since(t0))
}
