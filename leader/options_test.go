// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

func TestValidate(t *testing.T) {
	client, err := kube.NewClient(&kube.Config{Host: "http://127.0.0.1:1"}, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	good := Options{Client: client, Namespace: "default", LeaseName: "demo-leader", Identity: "pod-a_1234"}
	tests := []struct {
		name    string
		edit    func(*Options)
		wantErr string // empty: valid
	}{
		{"defaults", func(*Options) {}, ""},
		{"client-go's values", func(c *Options) {
			c.LeaseDuration, c.RenewDeadline, c.RetryPeriod = 15*time.Second, 10*time.Second, 2*time.Second
		}, ""},
		{"dotted name", func(c *Options) { c.LeaseName = "my.operator.example.com" }, ""},
		{"no client", func(c *Options) { c.Client = nil }, "Client is nil"},
		{"no namespace", func(c *Options) { c.Namespace = "" }, `Namespace "" must not be empty`},
		{"bad namespace", func(c *Options) { c.Namespace = "kube.system" }, `Namespace "kube.system" must be a DNS-1123 label`},
		{"no name", func(c *Options) { c.LeaseName = "" }, `LeaseName "" must not be empty`},
		{"upper case name", func(c *Options) { c.LeaseName = "Demo" }, `LeaseName "Demo" must be a DNS-1123 subdomain`},
		{"name ends with dash", func(c *Options) { c.LeaseName = "demo-" }, `LeaseName "demo-" must be a DNS-1123 subdomain`},
		{"long name", func(c *Options) { c.LeaseName = strings.Repeat("a", 254) }, "must be at most 253 characters"},
		{"fractional lease", func(c *Options) { c.LeaseDuration = 15500 * time.Millisecond }, "LeaseDuration 15.5s must be whole seconds"},
		{"negative lease", func(c *Options) { c.LeaseDuration = -time.Second }, "LeaseDuration -1s must be at least 1s"},
		{"lease not above deadline", func(c *Options) { c.LeaseDuration = 10 * time.Second }, "LeaseDuration 10s must be longer than RenewDeadline 10s"},
		{"deadline within jittered retry", func(c *Options) { c.RenewDeadline = 2400 * time.Millisecond },
			"RenewDeadline 2.4s must be longer than RetryPeriod 2s × JitterFactor 1.2 = 2.4s"},
		{"negative deadline", func(c *Options) { c.RenewDeadline = -1 }, "RenewDeadline -1ns must be positive"},
		{"negative retry", func(c *Options) { c.RetryPeriod = -time.Second }, "RetryPeriod -1s must be positive"},
		{"two faults", func(c *Options) { c.Client, c.LeaseName = nil, "" }, "Client is nil\nLeaseName \"\" must not be empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := good
			tt.edit(&c)
			c, err := c.withDefaults()
			if err == nil {
				err = c.validate()
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("validate(%s) = %v, want nil", tt.name, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("validate(%s) = %v, want an error containing %q", tt.name, err, tt.wantErr)
			}
		})
	}
}

func TestWithDefaults(t *testing.T) {
	c, err := Options{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if c.LeaseDuration != 15*time.Second || c.RenewDeadline != 10*time.Second || c.RetryPeriod != 2*time.Second {
		t.Errorf("withDefaults durations = %v, %v, %v, want 15s, 10s, 2s", c.LeaseDuration, c.RenewDeadline, c.RetryPeriod)
	}
	if c.Logger == nil {
		t.Error("withDefaults Logger = nil, want a discarding logger")
	}
	if c.Identity == "" {
		t.Error(`withDefaults Identity = "", want the default identity`)
	}
}

func TestDefaultIdentity(t *testing.T) {
	a, err := DefaultIdentity()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := DefaultIdentity()
	re := regexp.MustCompile(`^.+_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	if !re.MatchString(a) {
		t.Errorf("DefaultIdentity() = %q, want hostname_uuid", a)
	}
	if a == b {
		t.Errorf("DefaultIdentity() twice = %q, want different suffixes", a)
	}
}
