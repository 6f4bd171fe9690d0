package dynamo

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// An execution's events live under one partition: a counter item ("SEQ") and one item per
// event, "EV#" and the number in 12 digits, so that the sort key orders them by number.
func eventsPK(execution string) string { return "XE#" + execution }

func eventSK(seq int) string { return fmt.Sprintf("EV#%012d", seq) }

// AppendEvent takes the execution's next number from its counter (an atomic ADD, so separate
// functions appending to one execution never share a number), then writes the event under it.
// A writer that stops between the two leaves a gap in the numbers, never a duplicate; readers
// ask for events above a number, which a gap does not disturb.
func (s *Store) AppendEvent(ctx context.Context, execution string, e gardener.LadderEvent) (gardener.LadderEvent, error) {
	if err := need("event execution", execution); err != nil {
		return e, err
	}
	pk := eventsPK(execution)
	upd := &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.table),
		Key:                       key(pk, "SEQ"),
		UpdateExpression:          aws.String("ADD seq :one"),
		ExpressionAttributeValues: item{":one": avN(1)},
		ReturnValues:              types.ReturnValueUpdatedNew,
	}
	if exp, ok := s.expires(e.At); ok {
		upd.UpdateExpression = aws.String("ADD seq :one SET expires = :exp")
		upd.ExpressionAttributeValues[":exp"] = exp
	}
	out, err := s.db.UpdateItem(ctx, upd)
	if err != nil {
		return e, fmt.Errorf("event of execution %s: numbering: %w", execution, err)
	}
	seq := getN(out.Attributes, "seq")
	if seq < 1 {
		return e, fmt.Errorf("event of execution %s: the counter answered %v, not a number above 0", execution, out.Attributes["seq"])
	}
	e.Seq = seq
	it := key(pk, eventSK(seq))
	if exp, ok := s.expires(e.At); ok {
		it["expires"] = exp
	}
	if err := s.putDoc(ctx, it, e, "attribute_not_exists(PK)", nil); err != nil {
		return e, fmt.Errorf("event %d of execution %s: %w", seq, execution, err)
	}
	return e, nil
}

// Events reads the execution's events numbered above after, in order, at most limit, with a
// consistent read: an event appended before the read began is in it.
func (s *Store) Events(ctx context.Context, execution string, after, limit int) ([]gardener.LadderEvent, error) {
	limit = gardener.EventPage(limit)
	in := &dynamodb.QueryInput{
		TableName:              aws.String(s.table),
		KeyConditionExpression: aws.String("PK = :pk AND SK BETWEEN :from AND :to"),
		ExpressionAttributeValues: item{":pk": avS(eventsPK(execution)),
			":from": avS(eventSK(max(after, 0) + 1)), ":to": avS("EV#~")},
		ConsistentRead: aws.Bool(true),
		Limit:          aws.Int32(int32(limit)),
	}
	var items []item
	for len(items) < limit {
		page, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("events of execution %s after %d: %w", execution, after, err)
		}
		for _, it := range page.Items {
			// A record too big for one item keeps its chunks beside it; they are read with it.
			if !strings.Contains(getS(it, "SK"), "#CHUNK#") && len(items) < limit {
				items = append(items, it)
			}
		}
		if len(page.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = page.LastEvaluatedKey
	}
	return listed(items, func(it item) (gardener.LadderEvent, error) {
		var e gardener.LadderEvent
		_, err := s.decodeDoc(ctx, it, &e)
		return e, err
	})
}
