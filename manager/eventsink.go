// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// This file is the event recorder's back: the writer goroutine that turns
// recorded events into Event creates and series patches, deduplicated and
// rate-limited (see EventRecorder for the rules).

const (
	// eventBufferSize bounds the events recorded and not yet taken by the
	// writer (client-go's broadcaster queues 1000).
	eventBufferSize = 1000
	// seriesWindow is how long after its last occurrence an event still
	// counts as a repeat (client-go's finishTime).
	seriesWindow = 6 * time.Minute
	// spamBurst and spamRefill make the token bucket of each (object,
	// reason): client-go's spam filter.
	spamBurst  = 25
	spamRefill = 5 * time.Minute
	// maxSeries bounds the events remembered for deduplication.
	maxSeries = 4096
	// eventWriteTimeout bounds each write; eventFlushTimeout bounds the
	// writes made once the manager stops.
	eventWriteTimeout = 10 * time.Second
	eventFlushTimeout = 10 * time.Second
)

// eventSink is the writer of one manager's events.
type eventSink struct {
	api      *kube.Client
	log      *slog.Logger
	in       chan kube.Event
	dropped  *CounterVec // kubeloop_events_dropped_total{reason}
	hostname func() string
}

func newEventSink(api *kube.Client, log *slog.Logger) *eventSink {
	return &eventSink{
		api: api, log: log,
		in: make(chan kube.Event, eventBufferSize),
		dropped: NewCounterVec("kubeloop_events_dropped_total",
			"Events not written: buffer_full (the writer fell behind), invalid (refused by the recorder), too_many_series, write_failed.", "reason"),
		hostname: sync.OnceValue(hostname),
	}
}

// enqueue hands ev to the writer, or drops it when the buffer is full.
func (s *eventSink) enqueue(ev kube.Event) {
	select {
	case s.in <- ev:
	default:
		s.dropped.Inc("buffer_full")
	}
}

// run writes events until ctx is done, then writes what it holds (the
// buffer, and the counts not yet written) within eventFlushTimeout. A
// write in flight when ctx is done is not cut short (it could land
// unacknowledged, and be written twice by the flush): writes are bounded
// by eventWriteTimeout instead.
func (s *eventSink) run(ctx context.Context) {
	st := &eventState{sink: s, series: map[eventKey]*series{}, buckets: map[spamKey]*bucket{}}
	writeCtx := context.WithoutCancel(ctx)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case ev := <-s.in:
			st.observe(writeCtx, ev)
		case <-timer.C:
			st.tick(writeCtx, time.Now())
		case <-ctx.Done():
			flush, cancel := context.WithTimeout(context.WithoutCancel(ctx), eventFlushTimeout)
			defer cancel()
			for drained := false; !drained; {
				select {
				case ev := <-s.in:
					st.observe(flush, ev)
				default:
					drained = true
				}
			}
			for _, se := range st.series {
				st.write(flush, se, time.Now(), true)
			}
			return
		}
		if !st.wakeAt.IsZero() {
			timer.Reset(time.Until(st.wakeAt))
		}
	}
}

// eventState is owned by the goroutine running eventSink.run.
type eventState struct {
	sink    *eventSink
	series  map[eventKey]*series
	buckets map[spamKey]*bucket
	// wakeAt is when tick should run next: a deferred write may find a
	// token, or a series may end. Zero when nothing waits.
	wakeAt time.Time
}

// eventKey says which events are repeats of each other.
type eventKey struct {
	controller, instance string
	regarding            kube.ObjectReference // without resourceVersion
	action, reason, typ  string
}

// spamKey says which events share a token bucket.
type spamKey struct {
	regarding kube.ObjectReference // without resourceVersion
	reason    string
}

// series is an event and its repeats.
type series struct {
	ev    kube.Event // as created (Name set), or to be created (Name empty)
	count int32
	last  time.Time // the last occurrence
	dirty bool      // the server has not been told of the latest occurrence
	spam  spamKey
}

func (st *eventState) observe(ctx context.Context, ev kube.Event) {
	ref := ev.Regarding
	ref.ResourceVersion = ""
	k := eventKey{ev.ReportingController, ev.ReportingInstance, ref, ev.Action, ev.Reason, ev.Type}
	at := ev.EventTime.Time
	se := st.series[k]
	switch {
	case se != nil && at.Sub(se.last) < seriesWindow:
		se.count++
		se.last, se.dirty = at, true
	default:
		if se == nil && len(st.series) >= maxSeries {
			st.sweep(time.Now())
			if len(st.series) >= maxSeries {
				st.sink.dropped.Inc("too_many_series")
				return
			}
		}
		se = &series{ev: ev, count: 1, last: at, dirty: true, spam: spamKey{ref, ev.Reason}}
		st.series[k] = se
	}
	now := time.Now()
	st.write(ctx, se, now, false)
	if !se.dirty {
		st.wake(se.last.Add(seriesWindow))
	}
}

// write tells the server about se if it is dirty and a token allows it
// (or force is set): it creates the Event, or patches its series.
func (st *eventState) write(ctx context.Context, se *series, now time.Time, force bool) {
	if !se.dirty {
		return
	}
	b := st.buckets[se.spam]
	if b == nil {
		b = &bucket{tokens: spamBurst, at: now}
		st.buckets[se.spam] = b
	}
	if !b.take(now) && !force {
		st.wake(b.next(now))
		return
	}
	se.dirty = false
	ctx, cancel := context.WithTimeout(ctx, eventWriteTimeout)
	defer cancel()
	var seriesField *kube.EventSeries
	if se.count > 1 {
		seriesField = &kube.EventSeries{Count: se.count, LastObservedTime: kube.MicroTime{Time: se.last}}
	}
	if se.ev.Name != "" {
		patch, _ := json.Marshal(map[string]any{"series": seriesField}) // cannot fail
		target := kube.Event{ObjectMeta: kube.ObjectMeta{Namespace: se.ev.Namespace, Name: se.ev.Name}}
		err := st.sink.api.Patch(ctx, &target, kube.Patch{Type: kube.MergePatch, Data: patch})
		if err == nil {
			return
		}
		if !kube.IsNotFound(err) {
			st.failed(se, err)
			return
		}
		se.ev.Name = "" // deleted meanwhile: create it again
	}
	ev := se.ev
	ev.Name = eventName(ev.Regarding.Name)
	ev.Series = seriesField
	if err := st.sink.api.Create(ctx, &ev); err != nil {
		st.failed(se, err)
		return
	}
	se.ev.Name = ev.Name
}

func (st *eventState) failed(se *series, err error) {
	st.sink.log.Info("could not write event", "reason", se.ev.Reason, "regarding", se.ev.Regarding.Kind+" "+se.ev.Regarding.Namespace+"/"+se.ev.Regarding.Name, "err", err)
	st.sink.dropped.Inc("write_failed")
}

// tick retries the deferred writes and forgets what has ended; the cost
// is O(series).
func (st *eventState) tick(ctx context.Context, now time.Time) {
	st.wakeAt = time.Time{}
	for _, se := range st.series {
		st.write(ctx, se, now, false)
	}
	st.sweep(now)
	for _, se := range st.series {
		if !se.dirty { // a dirty series woke us for its token, in write
			st.wake(se.last.Add(seriesWindow))
		}
	}
}

// sweep forgets series past their window with nothing left to write, and
// buckets that are full again (a new bucket starts full).
func (st *eventState) sweep(now time.Time) {
	for k, se := range st.series {
		if !se.dirty && now.Sub(se.last) >= seriesWindow {
			delete(st.series, k)
		}
	}
	for k, b := range st.buckets {
		if b.refill(now); b.tokens >= spamBurst {
			delete(st.buckets, k)
		}
	}
}

// wake makes tick run at t at the latest.
func (st *eventState) wake(t time.Time) {
	if st.wakeAt.IsZero() || t.Before(st.wakeAt) {
		st.wakeAt = t
	}
}

// bucket is a token bucket of spamBurst tokens refilled one per spamRefill.
type bucket struct {
	tokens float64
	at     time.Time // when tokens was computed
}

func (b *bucket) refill(now time.Time) {
	if now.After(b.at) {
		b.tokens = min(spamBurst, b.tokens+float64(now.Sub(b.at))/float64(spamRefill))
		b.at = now
	}
}

// take takes a token if there is one.
func (b *bucket) take(now time.Time) bool {
	b.refill(now)
	if b.tokens >= 1-1e-9 {
		b.tokens = max(b.tokens-1, 0)
		return true
	}
	return false
}

// next returns when the bucket will hold a token.
func (b *bucket) next(now time.Time) time.Time {
	b.refill(now)
	if b.tokens >= 1-1e-9 {
		return now
	}
	return now.Add(time.Duration((1 - b.tokens) * float64(spamRefill)))
}
