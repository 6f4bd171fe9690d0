package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// metered is the client's options with every call counted: a call whose context carries a
// gardener.Meter asks DynamoDB for the capacity it consumed (ReturnConsumedCapacity TOTAL) and
// adds what the answer reports, reads and writes apart, to the meter. It is what DynamoDB bills,
// not an estimate; a backend that reports no capacity adds nothing.
func metered(o *dynamodb.Options) {
	o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
		return st.Initialize.Add(meter{}, middleware.After)
	})
}

type meter struct{}

func (meter) ID() string { return "DriftGardenerMeter" }

func (meter) HandleInitialize(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	m := gardener.MeterOf(ctx)
	if m == nil {
		return next.HandleInitialize(ctx, in)
	}
	total := types.ReturnConsumedCapacityTotal
	switch p := in.Parameters.(type) {
	case *dynamodb.GetItemInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.QueryInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.ScanInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.PutItemInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.UpdateItemInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.DeleteItemInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.TransactWriteItemsInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.TransactGetItemsInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.BatchGetItemInput:
		p.ReturnConsumedCapacity = total
	case *dynamodb.BatchWriteItemInput:
		p.ReturnConsumedCapacity = total
	}
	out, md, err := next.HandleInitialize(ctx, in)
	switch r := out.Result.(type) {
	case *dynamodb.GetItemOutput:
		m.Read(units(r.ConsumedCapacity))
	case *dynamodb.QueryOutput:
		m.Read(units(r.ConsumedCapacity))
	case *dynamodb.ScanOutput:
		m.Read(units(r.ConsumedCapacity))
	case *dynamodb.TransactGetItemsOutput:
		m.Read(units(r.ConsumedCapacity...))
	case *dynamodb.BatchGetItemOutput:
		m.Read(units(r.ConsumedCapacity...))
	case *dynamodb.PutItemOutput:
		m.Wrote(units(r.ConsumedCapacity))
	case *dynamodb.UpdateItemOutput:
		m.Wrote(units(r.ConsumedCapacity))
	case *dynamodb.DeleteItemOutput:
		m.Wrote(units(r.ConsumedCapacity))
	case *dynamodb.TransactWriteItemsOutput:
		m.Wrote(units(r.ConsumedCapacity...))
	case *dynamodb.BatchWriteItemOutput:
		m.Wrote(units(r.ConsumedCapacity...))
	}
	return out, md, err
}

// units sums the capacity units of one call's answer.
func units[C *types.ConsumedCapacity | types.ConsumedCapacity](cs ...C) float64 {
	total := 0.0
	for _, c := range cs {
		var cc *types.ConsumedCapacity
		switch v := any(c).(type) {
		case *types.ConsumedCapacity:
			cc = v
		case types.ConsumedCapacity:
			cc = &v
		}
		if cc != nil && cc.CapacityUnits != nil {
			total += *cc.CapacityUnits
		}
	}
	return total
}
