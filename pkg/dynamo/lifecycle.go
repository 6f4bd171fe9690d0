package dynamo

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/driftgardener/gardener/pkg/gardener"
)

const proposed = string(gardener.ProposalProposed)

func guardKey(testID string) item { return key("T#"+testID, "OPEN") }

// guard names p as its test's open proposal.
func guard(p gardener.Proposal) item {
	g := guardKey(p.TestID)
	g["openId"] = avS(p.ID)
	return g
}

// proposalItem is a proposal row; its triggers live in the "triggers" map (change id → JSON)
// so a restatement can add to them in place.
func proposalItem(p gardener.Proposal) (item, error) {
	it := key("PR#"+p.ID, "PROPOSAL")
	it["kind"] = avS("proposal")
	it["GSI1PK"] = avS("T#" + p.TestID + "#PROPOSALS")
	it["GSI1SK"] = avS(timeKey(p.StagedAt) + "#" + p.ID)
	if p.Status == gardener.ProposalProposed {
		it["GSI2PK"] = avS("P#" + p.ProjectID + "#OPEN")
		it["GSI2SK"] = avS(timeKey(p.StagedAt) + "#" + p.ID)
	}
	it["rowStatus"] = avS(string(p.Status))
	it["baseVersion"] = avN(p.BaseVersion)
	it["restated"] = avN(p.Restated)
	it["updatedAt"] = avS(timeKey(p.UpdatedAt))
	triggers, err := triggersAttr(p)
	it["triggers"] = triggers
	return it, err
}

// readProposal reads a proposal row with its changing attributes laid over its document. A
// restatement marker is not a proposal: it reads as not found.
func (s *Store) readProposal(ctx context.Context, id string) (gardener.Proposal, error) {
	var p gardener.Proposal
	it, err := s.get(ctx, "PR#"+id, "PROPOSAL")
	if err != nil {
		return p, err
	}
	if it == nil || getS(it, "kind") != "proposal" {
		return p, &gardener.NotFoundError{Entity: "proposal", ID: id}
	}
	return s.decodeProposal(ctx, it)
}

func (s *Store) decodeProposal(ctx context.Context, it item) (gardener.Proposal, error) {
	var p gardener.Proposal
	it, err := s.decodeDoc(ctx, it, &p)
	if err != nil {
		return p, err
	}
	p.Status = gardener.ProposalStatus(getS(it, "rowStatus"))
	p.Restated = getN(it, "restated")
	p.UpdatedAt = parseTime(getS(it, "updatedAt"))
	p.DecidedBy = getS(it, "decidedBy")
	p.DecidedAt = parseTime(getS(it, "decidedAt"))
	p.Triggers = nil
	if m, ok := it["triggers"].(*types.AttributeValueMemberM); ok {
		for k, v := range m.Value {
			var c gardener.AppChange
			raw, _ := v.(*types.AttributeValueMemberS)
			if raw == nil || json.Unmarshal([]byte(raw.Value), &c) != nil {
				return p, corrupt(getS(it, "PK"), getS(it, "SK"), fmt.Errorf("trigger %s does not decode", k))
			}
			p.Triggers = append(p.Triggers, c)
		}
	}
	p.Triggers = gardener.MergeTriggers(nil, p.Triggers)
	return p, nil
}

// proposalWrites puts a new proposal row and its body, conditional on the id being new.
func (s *Store) proposalWrites(p gardener.Proposal) ([]types.TransactWriteItem, error) {
	it, err := proposalItem(p)
	if err != nil {
		return nil, err
	}
	body := p
	body.Triggers = nil
	return s.txDoc(it, body, "attribute_not_exists(PK)", nil)
}

// closeWrites move an open row to its closed state and free the test's guard, conditional on
// the row still being proposed.
func (s *Store) closeWrites(closed gardener.Proposal) []types.TransactWriteItem {
	return []types.TransactWriteItem{s.closeWrite(closed), s.txDelete(guardKey(closed.TestID), "openId = :id", item{":id": avS(closed.ID)})}
}

// closeWrite moves an open row to its closed state, conditional on it still being proposed.
func (s *Store) closeWrite(closed gardener.Proposal) types.TransactWriteItem {
	return s.txUpdate(key("PR#"+closed.ID, "PROPOSAL"),
		"SET rowStatus = :s, decidedBy = :by, decidedAt = :at, updatedAt = :u REMOVE GSI2PK, GSI2SK",
		"rowStatus = :proposed", nil,
		item{":s": avS(string(closed.Status)), ":by": avS(closed.DecidedBy), ":at": avS(timeKey(closed.DecidedAt)), ":u": avS(timeKey(closed.UpdatedAt)), ":proposed": avS(proposed)})
}

// triggersAttr is the "triggers" map of a row: change id → the change as JSON.
func triggersAttr(p gardener.Proposal) (types.AttributeValue, error) {
	triggers := item{}
	for _, c := range p.Triggers {
		raw, err := json.Marshal(c)
		if err != nil {
			return nil, fmt.Errorf("encode trigger %s of proposal %s: %w", c.ID, p.ID, err)
		}
		triggers["c:"+c.ID] = avS(string(raw))
	}
	return &types.AttributeValueMemberM{Value: triggers}, nil
}

// StageProposal stages p or records it on the test's open proposal, as gardener.PlanStage
// decides from what it reads. Each write is conditional on what the plan was made from: a new
// open row on the test having none (the guard is new), a restatement on the open row being
// still proposed at its base version, a supersede on the guard still naming the row read; and
// the restatement marker or the new row on p's id being new, which makes a redelivery a
// duplicate. A refused condition plans again from a fresh read.
//
// A restatement is written as what it adds (the count one higher, p's triggers where their
// change ids are absent) rather than as the planned row, so sweeps restating one row at once
// all land instead of refusing each other; the row is read again for the result.
func (s *Store) StageProposal(ctx context.Context, p gardener.Proposal) (gardener.Staged, error) {
	if err := need("proposal id", p.ID); err != nil {
		return gardener.Staged{}, err
	}
	if err := need("proposal "+p.ID+": test id", p.TestID); err != nil {
		return gardener.Staged{}, err
	}
	var plan gardener.StagePlan
	reread := "" // the open row to return after a restatement
	err := s.step(ctx, "stage proposal "+p.ID, func() ([]types.TransactWriteItem, error) {
		reread = ""
		prior, open, err := s.readStage(ctx, p)
		if err != nil {
			return nil, err
		}
		if plan, err = gardener.PlanStage(p, prior, open); err != nil {
			return nil, err
		}
		switch plan.Outcome {
		case gardener.StagedNew:
			writes, err := s.proposalWrites(plan.Stage)
			return append(writes, s.txPut(guard(p), "attribute_not_exists(PK)", nil)), err
		case gardener.StagedRestated:
			r := plan.Restated
			marker := key("PR#"+p.ID, "PROPOSAL")
			marker["kind"], marker["restatedInto"] = avS("restated"), avS(r.ID)
			update := "SET restated = restated + :one, updatedAt = :u"
			names := map[string]string{}
			values := item{":one": avN(1), ":u": avS(timeKey(r.UpdatedAt)), ":proposed": avS(proposed), ":b": avN(r.BaseVersion)}
			for i, c := range r.Triggers {
				if slices.ContainsFunc(open.Triggers, func(o gardener.AppChange) bool { return o.ID == c.ID }) {
					continue
				}
				raw, err := json.Marshal(c)
				if err != nil {
					return nil, fmt.Errorf("encode trigger %s of proposal %s: %w", c.ID, r.ID, err)
				}
				n, v := fmt.Sprintf("#t%d", i), fmt.Sprintf(":t%d", i)
				update += fmt.Sprintf(", triggers.%s = if_not_exists(triggers.%s, %s)", n, n, v)
				names[n], values[v] = "c:"+c.ID, avS(string(raw))
			}
			reread = r.ID
			return []types.TransactWriteItem{
				s.txPut(marker, "attribute_not_exists(PK)", nil),
				s.txUpdate(key("PR#"+r.ID, "PROPOSAL"), update, "rowStatus = :proposed AND baseVersion = :b", names, values),
			}, nil
		case gardener.StagedSuperseded:
			writes := []types.TransactWriteItem{
				s.closeWrite(plan.Superseded),
				s.txPut(guard(p), "openId = :old", item{":old": avS(plan.Superseded.ID)}),
			}
			rows, err := s.proposalWrites(plan.Stage)
			return append(writes, rows...), err
		}
		return nil, nil
	})
	if err != nil {
		return gardener.Staged{}, err
	}
	out := plan.Staged()
	if reread != "" {
		out.Proposal, err = s.readProposal(ctx, reread)
	}
	return out, err
}

// readStage reads what staging p is planned from: the row p's id names already (p itself, or
// the open row a restatement marker under p's id points to) and the test's open row, each nil
// when there is none. The open row is the one the test's guard names while it is proposed: a
// row found closed was decided after the guard was read, and the guard is gone with it.
func (s *Store) readStage(ctx context.Context, p gardener.Proposal) (prior, open *gardener.Proposal, err error) {
	it, err := s.get(ctx, "PR#"+p.ID, "PROPOSAL")
	if err != nil {
		return nil, nil, err
	}
	if it != nil {
		id := p.ID
		if getS(it, "kind") == "restated" {
			id = getS(it, "restatedInto")
		}
		row, err := s.readProposal(ctx, id)
		return &row, nil, err
	}
	guard, err := s.get(ctx, "T#"+p.TestID, "OPEN")
	if err != nil || guard == nil {
		return nil, nil, err
	}
	row, err := s.readProposal(ctx, getS(guard, "openId"))
	if err != nil || row.Status != gardener.ProposalProposed {
		return nil, nil, err
	}
	return nil, &row, nil
}

// Proposal reads a proposal.
func (s *Store) Proposal(ctx context.Context, id string) (gardener.Proposal, error) {
	return s.readProposal(ctx, id)
}

func (s *Store) proposals(ctx context.Context, index, pk string, newestFirst bool) ([]gardener.Proposal, error) {
	items, err := s.queryIndex(ctx, index, pk, "", newestFirst)
	if err != nil {
		return nil, err
	}
	return listed(items, func(it item) (gardener.Proposal, error) { return s.decodeProposal(ctx, it) })
}

// OpenProposals is the project's queue, oldest staged first.
func (s *Store) OpenProposals(ctx context.Context, projectID string) ([]gardener.Proposal, error) {
	return s.proposals(ctx, "GSI2", "P#"+projectID+"#OPEN", false)
}

// TestProposals is every row of a test, newest staged first.
func (s *Store) TestProposals(ctx context.Context, testID string) ([]gardener.Proposal, error) {
	return s.proposals(ctx, "GSI1", "T#"+testID+"#PROPOSALS", true)
}

// closeProposal reads an open row and returns it as it is and moved to status by by at at;
// a row no longer proposed is a *gardener.ConflictError.
func (s *Store) closeProposal(ctx context.Context, id string, status gardener.ProposalStatus, by string, at time.Time) (open, closed gardener.Proposal, err error) {
	if open, err = s.readProposal(ctx, id); err != nil {
		return open, closed, err
	}
	closed, err = open.Close(status, by, at)
	return open, closed, err
}

// ApplyProposal approves an open proposal atomically.
func (s *Store) ApplyProposal(ctx context.Context, a gardener.ApplyProposal) (gardener.Test, error) {
	if err := need("repair id", a.Repair.ID); err != nil {
		return gardener.Test{}, err
	}
	var t gardener.Test
	err := s.step(ctx, "apply proposal "+a.ProposalID, func() ([]types.TransactWriteItem, error) {
		p, applied, err := s.closeProposal(ctx, a.ProposalID, gardener.ProposalApplied, a.Repair.ApprovedBy, a.Repair.At)
		if err != nil {
			return nil, err
		}
		if err := a.Check(p); err != nil {
			return nil, fmt.Errorf("dynamo store: %w", err)
		}
		writes, err := s.repairWrites(ctx, a.Steps, a.Repair, &t)
		if err != nil {
			return nil, err
		}
		return append(writes, s.closeWrites(applied)...), nil
	})
	return t, err
}

// CloseProposal moves an open row to dismissed, stale or superseded.
func (s *Store) CloseProposal(ctx context.Context, c gardener.CloseProposal) (gardener.Proposal, error) {
	if err := c.Validate(); err != nil {
		return gardener.Proposal{}, fmt.Errorf("dynamo store: %w", err)
	}
	var p gardener.Proposal
	err := s.step(ctx, "close proposal "+c.ProposalID, func() ([]types.TransactWriteItem, error) {
		var err error
		if _, p, err = s.closeProposal(ctx, c.ProposalID, c.Status, c.By, c.At); err != nil {
			return nil, err
		}
		writes := s.closeWrites(p)
		if c.Remembers() {
			writes = append(writes, s.txUpdate(key("T#"+c.Dismissal.TestID, "DISMISS#"+fmt.Sprint(c.Dismissal.TestVersion)),
				"ADD changes :c", "", nil, item{":c": &types.AttributeValueMemberSS{Value: c.Dismissal.Changes}}))
		}
		return writes, nil
	})
	if err != nil {
		return gardener.Proposal{}, err
	}
	return p, nil
}

// Dismissed reports whether every change of key was dismissed at its test version.
func (s *Store) Dismissed(ctx context.Context, k gardener.DismissalKey) (bool, error) {
	if len(k.Changes) == 0 {
		return false, nil // nothing to recognise it by, nothing to read
	}
	it, err := s.get(ctx, "T#"+k.TestID, "DISMISS#"+fmt.Sprint(k.TestVersion))
	if err != nil || it == nil {
		return false, err
	}
	var known []string
	if set, ok := it["changes"].(*types.AttributeValueMemberSS); ok {
		known = set.Value
	}
	return k.CoveredBy(known), nil
}

func repairItem(r gardener.Repair) item {
	it := key("RP#"+r.ID, "REPAIR")
	it["GSI1PK"] = avS("T#" + r.TestID + "#REPAIRS")
	it["GSI1SK"] = avS(timeKey(r.At) + "#" + r.ID)
	it["GSI2PK"] = avS("P#" + r.ProjectID + "#REPAIRS")
	it["GSI2SK"] = avS(timeKey(r.At) + "#" + r.ID)
	it["badged"] = avBool(r.Badge)
	return it
}

// repairWrites checks that the repair id is new and the test at r.FromVersion, and returns the
// writes of the steps and the repair; *t receives the test as written.
func (s *Store) repairWrites(ctx context.Context, steps []gardener.Step, r gardener.Repair, t *gardener.Test) ([]types.TransactWriteItem, error) {
	prior, err := s.get(ctx, "RP#"+r.ID, "REPAIR")
	if err != nil {
		return nil, err
	}
	if prior != nil {
		return nil, &gardener.ConflictError{Entity: "repair", ID: r.ID, Reason: "was written already"}
	}
	written, writes, err := s.writeSteps(ctx, r.TestID, r.FromVersion, steps)
	if err != nil {
		return nil, err
	}
	r.ToVersion = written.Version
	rw, err := s.txDoc(repairItem(r), r, "attribute_not_exists(PK)", nil)
	if err != nil {
		return nil, err
	}
	*t = written
	return append(writes, rw...), nil
}

// WriteRepair writes a fix that needs no approval.
func (s *Store) WriteRepair(ctx context.Context, w gardener.WriteRepair) (gardener.Test, error) {
	if err := need("repair id", w.Repair.ID); err != nil {
		return gardener.Test{}, err
	}
	var t gardener.Test
	err := s.step(ctx, "write repair "+w.Repair.ID, func() ([]types.TransactWriteItem, error) {
		return s.repairWrites(ctx, w.Steps, w.Repair, &t)
	})
	return t, err
}

func (s *Store) decodeRepair(ctx context.Context, it item) (gardener.Repair, error) {
	var r gardener.Repair
	it, err := s.decodeDoc(ctx, it, &r)
	if err != nil {
		return r, err
	}
	r.Badge = getBool(it, "badged")
	r.ReviewedBy = getS(it, "reviewedBy")
	r.RevertedBy = getS(it, "revertedBy")
	r.RevertedAt = parseTime(getS(it, "revertedAt"))
	return r, nil
}

// Repair reads a repair.
func (s *Store) Repair(ctx context.Context, id string) (gardener.Repair, error) {
	it, err := s.get(ctx, "RP#"+id, "REPAIR")
	if err != nil {
		return gardener.Repair{}, err
	}
	if it == nil {
		return gardener.Repair{}, &gardener.NotFoundError{Entity: "repair", ID: id}
	}
	return s.decodeRepair(ctx, it)
}

func (s *Store) repairs(ctx context.Context, index, pk, from string) ([]gardener.Repair, error) {
	items, err := s.queryIndex(ctx, index, pk, from, true)
	if err != nil {
		return nil, err
	}
	return listed(items, func(it item) (gardener.Repair, error) { return s.decodeRepair(ctx, it) })
}

// Repairs is a test's repair history, newest first.
func (s *Store) Repairs(ctx context.Context, testID string) ([]gardener.Repair, error) {
	return s.repairs(ctx, "GSI1", "T#"+testID+"#REPAIRS", "")
}

// RepairsSince lists a project's repairs at or after since, newest first.
func (s *Store) RepairsSince(ctx context.Context, projectID string, since time.Time) ([]gardener.Repair, error) {
	return s.repairs(ctx, "GSI2", "P#"+projectID+"#REPAIRS", timeKey(since))
}

// RevertRepair writes a repair's pre-repair steps back as a new version.
func (s *Store) RevertRepair(ctx context.Context, rv gardener.RevertRepair) (gardener.Test, error) {
	var t gardener.Test
	err := s.step(ctx, "revert repair "+rv.RepairID, func() ([]types.TransactWriteItem, error) {
		r, err := s.Repair(ctx, rv.RepairID)
		if err != nil {
			return nil, err
		}
		reverted, err := r.Revert(rv.By, rv.At)
		if err != nil {
			return nil, err
		}
		written, writes, err := s.writeSteps(ctx, r.TestID, r.ToVersion, r.PreSteps)
		if err != nil {
			return nil, err
		}
		t = written
		return append(writes, s.txUpdate(key("RP#"+r.ID, "REPAIR"),
			"SET revertedAt = :at, revertedBy = :by, badged = :badge", "attribute_not_exists(revertedAt)", nil,
			item{":at": avS(timeKey(reverted.RevertedAt)), ":by": avS(reverted.RevertedBy), ":badge": avBool(reverted.Badge)})), nil
	})
	return t, err
}

// MarkReviewed clears a repair's badge; the fix stays.
func (s *Store) MarkReviewed(ctx context.Context, repairID, by string) (gardener.Repair, error) {
	r, err := s.Repair(ctx, repairID)
	if err != nil {
		return gardener.Repair{}, err
	}
	r, err = r.Reviewed(by)
	if err != nil {
		return gardener.Repair{}, err
	}
	// The write holds only on the state the rule was asked about: still badged, neither
	// reverted nor reviewed since the read. Otherwise the rule is asked again on what changed.
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.table),
		Key:                       key("RP#"+repairID, "REPAIR"),
		UpdateExpression:          aws.String("SET badged = :badge, reviewedBy = :by"),
		ConditionExpression:       aws.String("attribute_exists(PK) AND badged = :badged AND attribute_not_exists(revertedAt) AND (attribute_not_exists(reviewedBy) OR reviewedBy = :nobody)"),
		ExpressionAttributeValues: item{":badge": avBool(r.Badge), ":by": avS(r.ReviewedBy), ":badged": avBool(true), ":nobody": avS("")},
		ReturnValues:              types.ReturnValueAllNew,
	})
	if conditionFailed(err) {
		now, rerr := s.Repair(ctx, repairID)
		if rerr != nil {
			return gardener.Repair{}, rerr
		}
		if _, rerr := now.Reviewed(by); rerr != nil {
			return gardener.Repair{}, rerr
		}
		return gardener.Repair{}, &gardener.ConflictError{Entity: "repair", ID: repairID, Reason: "changed while it was marked reviewed"}
	}
	if err != nil {
		return gardener.Repair{}, fmt.Errorf("mark repair %s reviewed: %w", repairID, err)
	}
	return s.decodeRepair(ctx, out.Attributes)
}
