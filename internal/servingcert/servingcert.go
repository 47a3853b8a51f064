// SPDX-License-Identifier: Apache-2.0

// Package servingcert holds what the TLS servers of packages
// manager/webhook and manager/metricsauth share: the serving certificate
// read from two files and reloaded when they change ([Files]), the TLS
// configuration of a server whose certificate comes from a source asked
// at each handshake ([TLSConfig]), and the log of its failed handshakes
// ([ErrorLog]), which tells a certificate not there yet, an expected
// state while a source reads or makes it, from a failure.
//
// It imports only the standard library; a program links it only through
// one of those two packages.
package servingcert

import (
	"context"
	"crypto/tls"
	"log"
	"log/slog"
	"strings"
)

// Source gives a server its certificate at each TLS handshake
// (tls.Config.GetCertificate), so that a rotated certificate is served
// without a restart.
type Source interface {
	GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error)
}

// notReadyPrefix begins the error of a handshake that the source could
// not serve: what [ErrorLog] looks for.
const notReadyPrefix = "serving certificate not ready: "

// notReady is a source's failure to give a certificate.
type notReady struct{ err error }

func (e notReady) Error() string { return notReadyPrefix + e.err.Error() }
func (e notReady) Unwrap() error { return e.err }

// TLSConfig is the configuration of a server that serves src's
// certificate: TLS 1.2 at least, HTTP/1.1 only (the API server and
// Prometheus speak it, and HTTP/2's stream handling, rapid reset, is not
// worth exposing). A handshake that src cannot serve fails with an error
// that [ErrorLog] logs at debug level: a source without a certificate is
// a server not ready yet (its readiness check says so, and the source
// logs its own failures), not a fault of the handshake.
func TLSConfig(src Source) *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		GetCertificate: func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
			c, err := src.GetCertificate(hello)
			if err != nil {
				return nil, notReady{err}
			}
			return c, nil
		},
		NextProtos: []string{"http/1.1"},
	}
}

// ErrorLog is an http.Server's ErrorLog writing to l: the handshakes
// refused because [TLSConfig]'s source had no certificate at debug level,
// every other line (a client's failed handshake, a failed accept) at
// warn level.
func ErrorLog(l *slog.Logger) *log.Logger {
	return log.New(errorLogWriter{l}, "", 0)
}

type errorLogWriter struct{ l *slog.Logger }

func (w errorLogWriter) Write(p []byte) (int, error) {
	msg := strings.TrimSuffix(string(p), "\n")
	level := slog.LevelWarn
	if strings.Contains(msg, ": "+notReadyPrefix) {
		level = slog.LevelDebug
	}
	w.l.Log(context.Background(), level, msg)
	return len(p), nil
}
