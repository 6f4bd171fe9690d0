package handler

import (
	"context"

	"github.com/driftgardener/gardener/pkg/gardening"
)

// Notification is one auto-repair event: see gardening.Notification.
type Notification = gardening.Notification

// NotificationKind is what happened to a test.
type NotificationKind = gardening.NotificationKind

// Auto-repair events, as the notify function reads them.
const (
	NotifyApplied  = gardening.NotifyApplied
	NotifyStaged   = gardening.NotifyStaged
	NotifyTriaged  = gardening.NotifyTriaged
	NotifyReverted = gardening.NotifyReverted
)

// NotifyDeps are the notify function's dependencies: the topic people subscribe to.
type NotifyDeps struct {
	Base
	Notifier Notifier
}

// NewNotify builds the handler that sends the event to people.
func NewNotify(d NotifyDeps) (func(context.Context, Notification) (Notification, error), error) {
	return built(d.notify, need("notify", dep{"Notifier", d.Notifier == nil}))
}

func (d NotifyDeps) notify(ctx context.Context, n Notification) (Notification, error) {
	if n.Kind == "" {
		return n, &BadEventError{Reason: "a notification needs a kind"}
	}
	if err := d.Notifier.Publish(ctx, n.Subject, n); err != nil {
		return n, err
	}
	return n, nil
}
