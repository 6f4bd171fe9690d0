// Package asl runs Amazon States Language state machines in process, so the local stack
// executes the same definitions Step Functions does.
//
// It runs what Drift Gardener's two state machines use and refuses the rest when a definition
// is parsed, naming the construct and the state, so a definition that starts to use something
// new fails loudly in the local stack and its tests instead of running differently there. It
// supports the state types Task, Pass, Choice, Succeed, Fail and Map (INLINE, with ItemsPath,
// ItemSelector, ItemProcessor and MaxConcurrency); InputPath, Parameters, ResultPath and
// OutputPath with JSONPaths of fields and array indexes; Retry and Catch with the predefined
// error names; Task TimeoutSeconds; the Choice operators StringEquals, NumericGreaterThan,
// BooleanEquals and Or; the intrinsic function States.ArrayPartition; and the context object's
// $$.Execution.Id and $$.Execution.Name in Parameters and ItemSelector, and $$.Map.Item.Index and
// $$.Map.Item.Value in a Map's ItemSelector.
//
// Task resources are run by Invokers found through a Resolver. A Go error becomes the error
// name a Go Lambda reports (see ErrorName), so Retry and Catch route exactly as they do on AWS.
// A resource no Invoker serves fails the execution with States.Runtime: a wiring mistake,
// which no Catch should turn into a triage.
package asl
