// Package asl runs Amazon States Language state machines in process, so the local stack
// executes the same definitions Step Functions does.
//
// It supports every state type (Task, Pass, Choice, Wait, Succeed, Fail, Map, Parallel), the
// JSONPath input and output processing fields (InputPath, Parameters, ItemSelector,
// ResultSelector, ResultPath, OutputPath), Retry and Catch with the predefined error names,
// Task TimeoutSeconds, the context object, and the intrinsic functions. Task resources are
// run by Invokers found through a Resolver; arn:aws:states:::lambda:invoke gets the Lambda
// integration's FunctionName and Payload convention. A Go error becomes the error name a Go
// Lambda reports (see ErrorName), so Retry and Catch route exactly as they do on AWS.
//
// Where running locally asks for a choice, the interpreter is stricter than AWS rather than
// quieter: a resource no Invoker serves fails the execution with States.Runtime (a wiring
// mistake, which no Catch should turn into a triage); JSONata, variables, Distributed Map
// readers and writers are refused at load; HeartbeatSeconds is accepted and not enforced; a
// DISTRIBUTED Map processor runs inline.
package asl
