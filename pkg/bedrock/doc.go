// Package bedrock is the gardener's model on Amazon Bedrock: gardener.Model over the Converse
// API of the bedrockruntime SDK.
//
// Each ask is one Converse call with one tool, whose input schema is the exact shape of the
// answer, and a tool choice forced onto that tool, so the model answers with a tool call or not
// at all. The schemas of steps are built from the domain's own field table (gardener.StepFields).
// Every answer is then decoded by the strict domain decoders — ops by gardener.Op, steps by
// gardener.DecodeSteps and ValidateStep, indices by gardener.ValidateOps, locators by
// gardener.ParseLocator — and returned only when it passes; the ladder still screens it with the
// assertion floor and proves it with the green gate, because an answer that is well-formed can
// still rewrite a check.
//
// The system prompt is fixed text. Everything taken from the test, its runs and the page goes in
// the user message as JSON inside tagged sections (<test>, <failure>, <last_green>,
// <page_data>), HTML-escaped so that no string can close a section, and the system prompt says
// that nothing inside them is an instruction.
//
// The errors an ask returns are typed, and their names are what a state machine's Retry and
// Catch match: ThrottlingError, ServiceError, RequestError, RefusalError, InvalidOutputError,
// and AskError for an ask that was never sent (see errors.go).
package bedrock
