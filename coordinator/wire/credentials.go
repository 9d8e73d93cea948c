package wire

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
)

// Credentials are the passwords of the two users.
type Credentials struct {
	Coordinator string `json:"coordinator,omitempty"`
	Worker      string `json:"worker"`
}

// NewCredentials makes random passwords, for a cluster that runs its own
// server.
func NewCredentials() (Credentials, error) {
	var c Credentials
	for _, p := range []*string{&c.Coordinator, &c.Worker} {
		b := make([]byte, 18)
		if _, err := rand.Read(b); err != nil {
			return c, err
		}
		*p = hex.EncodeToString(b)
	}
	return c, nil
}

// LoadCredentials reads a credentials file written by WriteCredentials.
func LoadCredentials(path string) (Credentials, error) {
	var c Credentials
	b, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// WriteCredentials writes a credentials file readable only by its owner.
func WriteCredentials(path string, c Credentials) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o600)
}
