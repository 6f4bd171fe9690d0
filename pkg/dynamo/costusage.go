package dynamo

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/driftgardener/gardener/pkg/gardener"
)

// usagePrefix is the sort key prefix of the cost record the invocations of an execution add to
// (AddRepairUsage): numbers DynamoDB adds to in place, not a document, so a record written
// whole (PutRepairCost, COST#) and one added to never share an item.
const usagePrefix = "COSTU#"

// AddRepairUsage adds c's usage to the record of its run and execution with one UpdateItem
// whose ADD DynamoDB applies atomically, so invocations adding at once (a Map's iterations) all
// count. The transitions are the execution's count so far: a second, conditional update keeps
// the largest.
func (s *Store) AddRepairUsage(ctx context.Context, c gardener.RepairCost) error {
	if err := need("repair cost run id", c.RunID); err != nil {
		return err
	}
	u := c.Usage
	names := map[string]string{"#g": "GSI1PK", "#gs": "GSI1SK", "#run": "runId", "#p": "projectId", "#t": "testId",
		"#x": "execution", "#at": "at", "#wu": "wu", "#ru": "ru", "#mc": "mc", "#it": "it", "#ot": "ot"}
	values := item{":g": avS("R#" + c.RunID + "#COSTS"), ":gs": avS(timeKey(c.At) + "#" + c.Execution), ":run": avS(c.RunID),
		":p": avS(c.ProjectID), ":t": avS(c.TestID), ":x": avS(c.Execution), ":at": avS(c.At.UTC().Format(time.RFC3339Nano)),
		":wu": avF(u.WriteUnits), ":ru": avF(u.ReadUnits), ":mc": avN(u.ModelCalls), ":it": avN(u.InputTokens), ":ot": avN(u.OutputTokens)}
	set := []string{"#g = :g", "#gs = if_not_exists(#gs, :gs)", "#run = :run", "#p = if_not_exists(#p, :p)", "#t = if_not_exists(#t, :t)",
		"#x = :x", "#at = if_not_exists(#at, :at)"}
	add := []string{"#wu :wu", "#ru :ru", "#mc :mc", "#it :it", "#ot :ot"}
	if u.Model != "" {
		names["#m"], values[":m"] = "model", avS(u.Model)
		set = append(set, "#m = if_not_exists(#m, :m)")
	}
	for i, l := range u.Lambda {
		n := strconv.Itoa(i)
		for _, f := range []struct{ name, attr string }{{"#ln" + n, "n"}, {"#lms" + n, "ms"}, {"#lmb" + n, "mb"}, {"#la" + n, "arch"}} {
			names[f.name] = "L#" + l.Function + "#" + f.attr
		}
		values[":ln"+n] = avN(l.Invocations)
		values[":lms"+n] = &types.AttributeValueMemberN{Value: strconv.FormatInt(l.BilledMillis, 10)}
		values[":lmb"+n], values[":la"+n] = avN(l.MemoryMB), avS(l.Architecture)
		set = append(set, "#lmb"+n+" = :lmb"+n, "#la"+n+" = :la"+n)
		add = append(add, "#ln"+n+" :ln"+n, "#lms"+n+" :lms"+n)
	}
	k := key("R#"+c.RunID, usagePrefix+c.Execution)
	if _, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(s.table), Key: k,
		UpdateExpression:         aws.String("SET " + strings.Join(set, ", ") + " ADD " + strings.Join(add, ", ")),
		ExpressionAttributeNames: names, ExpressionAttributeValues: values}); err != nil {
		return fmt.Errorf("add to the cost of run %s execution %s: %w", c.RunID, c.Execution, err)
	}
	if u.Transitions == 0 {
		return nil
	}
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(s.table), Key: k,
		UpdateExpression:          aws.String("SET #tr = :tr"),
		ConditionExpression:       aws.String("attribute_not_exists(#tr) OR #tr < :tr"),
		ExpressionAttributeNames:  map[string]string{"#tr": "tr"},
		ExpressionAttributeValues: item{":tr": avN(u.Transitions)}})
	if err != nil && !conditionFailed(err) {
		return fmt.Errorf("record the transitions of run %s execution %s: %w", c.RunID, c.Execution, err)
	}
	return nil
}

func avF(v float64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatFloat(v, 'f', -1, 64)}
}

func getF(it item, name string) float64 {
	if v, ok := it[name].(*types.AttributeValueMemberN); ok {
		f, _ := strconv.ParseFloat(v.Value, 64)
		return f
	}
	return 0
}

// usageRecord reads a record AddRepairUsage added to.
func usageRecord(it item) gardener.RepairCost {
	c := gardener.RepairCost{RunID: getS(it, "runId"), ProjectID: getS(it, "projectId"), TestID: getS(it, "testId"), Execution: getS(it, "execution")}
	c.At, _ = time.Parse(time.RFC3339Nano, getS(it, "at"))
	c.Usage = gardener.RepairUsage{Transitions: getN(it, "tr"), WriteUnits: getF(it, "wu"), ReadUnits: getF(it, "ru"), Model: getS(it, "model"),
		ModelCalls: getN(it, "mc"), InputTokens: getN(it, "it"), OutputTokens: getN(it, "ot")}
	fns := map[string]*gardener.LambdaUse{}
	for name := range it {
		parts := strings.Split(name, "#")
		if len(parts) != 3 || parts[0] != "L" {
			continue
		}
		l := fns[parts[1]]
		if l == nil {
			l = &gardener.LambdaUse{Function: parts[1]}
			fns[parts[1]] = l
		}
		switch parts[2] {
		case "n":
			l.Invocations = getN(it, name)
		case "ms":
			l.BilledMillis = int64(getF(it, name))
		case "mb":
			l.MemoryMB = getN(it, name)
		case "arch":
			l.Architecture = getS(it, name)
		}
	}
	for _, l := range fns {
		c.Usage.Lambda = append(c.Usage.Lambda, *l)
	}
	c.Usage = gardener.RepairUsage{}.Plus(c.Usage) // sorts the functions
	return c
}
