package spaapp

import (
	"github.com/driftgardener/gardener/tests/demoapp"
	"github.com/driftgardener/gardener/tests/testkit/appkit"
)

// Variant is one version of the app, described as the shop's variants are: its kind, what
// changed, what a correct repair is, and which saved tests break at which step.
type Variant = demoapp.Variant

// BaselineName is the name of the variant a new App serves.
const BaselineName = demoapp.BaselineName

// The variant names; the shell passes the variant to the page script, which draws the client
// side of each one, and the API handlers compare against these.
const (
	vLibUpgrade       = "lib-upgrade"
	vRouteRenamed     = "route-renamed"
	vColumnReordered  = "column-reordered"
	vKebabMenu        = "kebab-menu"
	vFrameField       = "frame-field-renamed"
	vFrameRenamed     = "frame-renamed"
	vSlowReports      = "slow-reports"
	vConfirmRelabel   = "confirm-relabelled"
	vTestIDRenamed    = "testid-renamed"
	vLabelRenamed     = "label-renamed"
	vPagerIcons       = "pager-icons"
	vInviteTeam       = "invite-team-required"
	vAnnouncement     = "settings-announcement"
	vNeutral          = "whats-new-banner"
	vWrongTotal       = "wrong-total"
	vRowActionNoop    = "edit-does-nothing"
	vSave500          = "save-500"
	vStatusMissing    = "status-missing"
	vDeletesWrongRow  = "deletes-wrong-row"
	vPaymentDeclined  = "payment-declined"
	vPaginationStuck  = "pagination-stuck"
	vReports500       = "reports-500"
	vFilterBroken     = "filter-broken"
	vOwnerActionsGone = "owner-actions-missing"
	regressionReason  = "No repair may be made: "
	componentUpgraded = "The component library upgrade"
)

var variants = appkit.Catalogue{
	{
		Name: BaselineName, Kind: demoapp.Baseline,
		Description:   "Crewdesk as every saved test was recorded against it.",
		CorrectRepair: "None needed: every saved test passes.",
		Breaks:        map[string]string{},
	},
	{
		Name: vLibUpgrade, Kind: demoapp.Drift,
		Description: componentUpgraded + ` wraps the member form's footer buttons in <div class="cd-actions"> inside the form's shadow root and renames cd-btn--primary to cd-button--primary.`,
		CorrectRepair: `Move the locator of the click on "Save changes" (member-edit step 6, ` +
			`css=form.member-form > .form-footer > button.cd-btn--primary) to the same button, e.g. role=button[name="Save changes"].`,
		Breaks: map[string]string{"member-edit": "6"},
	},
	{
		Name: vRouteRenamed, Kind: demoapp.Drift,
		Description: `The billing route is renamed from /billing to /account/billing: the navigation links there and /billing redirects to it.`,
		CorrectRepair: `Move the locator of the click on the navigation's billing link (nav-routing step 2, css=a[href="/billing"]) ` +
			`to the renamed link, e.g. role=link[name="Billing"]; every check still passes.`,
		Breaks: map[string]string{"nav-routing": "2"},
	},
	{
		Name: vColumnReordered, Kind: demoapp.Drift,
		Description: `The members table shows its row actions in the first column instead of the last.`,
		CorrectRepair: `Move the positional locator of the click on Dennis Ritchie's Edit button (members-paginate step 4, ` +
			`css=tbody > tr:nth-of-type(2) > td:nth-of-type(4) > button:nth-of-type(1)) to the same button, e.g. role=button[name="Edit Dennis Ritchie"].`,
		Breaks: map[string]string{"members-paginate": "4"},
	},
	{
		Name: vKebabMenu, Kind: demoapp.Drift,
		Description: `A row's Edit and Delete actions move into a per-row "More actions" menu (a kebab button that opens a role=menu).`,
		CorrectRepair: `Before the click on a row's Delete button (member-delete and member-delete-cancel step 2), insert a click on ` +
			`that row's "More actions for …" button, and move the Delete click to the menu item, e.g. role=menuitem[name="Delete Grace Hopper"].`,
		Breaks: map[string]string{"member-delete": "2", "member-delete-cancel": "2"},
	},
	{
		Name: vFrameField, Kind: demoapp.Drift,
		Description: `The payment provider renames the card number field inside the payment iframe from id="card-number" to id="cc-number" (its label still says "Card number").`,
		CorrectRepair: `Move the locator of the card number fill (billing-pay step 3, frame=#payment-frame >> #card-number) to the ` +
			`renamed field in the same frame, e.g. frame=#payment-frame >> label=Card number.`,
		Breaks: map[string]string{"billing-pay": "3"},
	},
	{
		Name: vFrameRenamed, Kind: demoapp.Drift,
		Description: `The payment iframe is renamed from id="payment-frame" to id="checkout-frame"; its fields do not change.`,
		CorrectRepair: `Move the frame of the three steps in the payment iframe (billing-pay steps 3 to 6) to the renamed iframe, ` +
			`e.g. frame=#checkout-frame >> #card-number.`,
		Breaks: map[string]string{"billing-pay": "3"},
	},
	{
		Name: vSlowReports, Kind: demoapp.Drift,
		Description: `The reports API got slower: the spinner on /reports now lasts about 6 seconds instead of a quarter of one.`,
		CorrectRepair: `Let the first check on /reports (reports-totals step 2) wait longer for the figures, e.g. a longer timeoutMs ` +
			`on it or a wait for the spinner to go before it; the checks themselves do not change.`,
		Breaks: map[string]string{"reports-totals": "2"},
	},
	{
		Name: vConfirmRelabel, Kind: demoapp.Drift,
		Description: `The delete confirmation dialog's confirm button is relabelled from "Delete" to "Yes, delete".`,
		CorrectRepair: `Move the locator of the confirm click (member-delete step 4, role=button[name="Delete"]) to the relabelled ` +
			`button, e.g. role=button[name="Yes, delete"].`,
		Breaks: map[string]string{"member-delete": "4"},
	},
	{
		Name: vTestIDRenamed, Kind: demoapp.Drift,
		Description: `The settings page's save button's test id changes from settings-save to save-settings-button.`,
		CorrectRepair: `Move the locator of the save click (settings-save step 4, testid=settings-save) to the same button, ` +
			`e.g. testid=save-settings-button or role=button[name="Save settings"].`,
		Breaks: map[string]string{"settings-save": "4"},
	},
	{
		Name: vLabelRenamed, Kind: demoapp.Drift,
		Description: `The settings form's "Team name" field is relabelled "Workspace name".`,
		CorrectRepair: `Move the locator of the team name fill (settings-save step 2, label=Team name) to the relabelled field, ` +
			`e.g. label=Workspace name.`,
		Breaks: map[string]string{"settings-save": "2"},
	},
	{
		Name: vPagerIcons, Kind: demoapp.Drift,
		Description: `The table's pager buttons become icon buttons ("‹", "›") named by aria-label ("Previous page", "Next page").`,
		CorrectRepair: `Move the locator of the click on Next (members-paginate step 2, text=Next) to the icon button, ` +
			`e.g. role=button[name="Next page"].`,
		Breaks: map[string]string{"members-paginate": "2"},
	},
	{
		Name: vInviteTeam, Kind: demoapp.Drift,
		Description:   `The invite dialog gains a required "Team" select; without it the form does not submit.`,
		CorrectRepair: `Insert a select of any team (label=Team) before the click on "Send invite" (member-invite step 6); no existing step changes.`,
		Breaks:        map[string]string{"member-invite": "7"},
	},
	{
		Name: vAnnouncement, Kind: demoapp.Drift,
		Description:   `The settings page opens a "Two-step sign-in is here" announcement dialog (a custom element with a shadow root) that covers the page until "Got it" is clicked.`,
		CorrectRepair: `Insert a click on the announcement's "Got it" button after the test reaches /settings (before settings-save step 2).`,
		Breaks:        map[string]string{"settings-save": "2"},
	},
	{
		Name: vNeutral, Kind: demoapp.Neutral,
		Description:   `A "What's new" banner, which covers nothing, appears above every page.`,
		CorrectRepair: "None needed: every saved test passes; a repair here would be a false positive.",
		Breaks:        map[string]string{},
	},
	{
		Name: vWrongTotal, Kind: demoapp.Regression,
		Description:   `The reports page's monthly cost leaves one member out ($220.00 for 12 members).`,
		CorrectRepair: regressionReason + `the monthly cost check (reports-totals step 2, equals "$240.00") would have to change its expected value.`,
		Breaks:        map[string]string{"reports-totals": "2"},
	},
	{
		Name: vRowActionNoop, Kind: demoapp.Regression,
		Description:   `A row's Edit button does nothing: its handler lost the route change.`,
		CorrectRepair: regressionReason + `the wait for /members/2 (member-edit step 3) is a check; no other element edits Alan Turing.`,
		Breaks:        map[string]string{"member-edit": "3"},
	},
	{
		Name: vSave500, Kind: demoapp.Regression,
		Description:   `Saving a member fails: PUT /api/members/{id} answers 500 and the form shows "Could not save changes".`,
		CorrectRepair: regressionReason + `the "Changes saved" toast and the PUT request's 200 are checks.`,
		Breaks:        map[string]string{"member-edit": "7"},
	},
	{
		Name: vStatusMissing, Kind: demoapp.Regression,
		Description:   `The billing page lost its invoice status line (#billing-status): a paid invoice no longer says so.`,
		CorrectRepair: regressionReason + `the status check (billing-pay step 8, equals "Paid") checks an element that is gone; moving it elsewhere would check something else.`,
		Breaks:        map[string]string{"billing-pay": "8"},
	},
	{
		Name: vDeletesWrongRow, Kind: demoapp.Regression,
		Description:   `Deleting a member deletes the next member in the list instead; the toast still names the one asked.`,
		CorrectRepair: regressionReason + `the check that Grace Hopper is gone (member-delete step 6) fails because she is not.`,
		Breaks:        map[string]string{"member-delete": "6"},
	},
	{
		Name: vPaymentDeclined, Kind: demoapp.Regression,
		Description:   `Every card is declined: POST /api/payments answers 402 and the frame says "Card declined".`,
		CorrectRepair: regressionReason + `the "Payment received" toast is a check.`,
		Breaks:        map[string]string{"billing-pay": "7"},
	},
	{
		Name: vPaginationStuck, Kind: demoapp.Regression,
		Description:   `The pager's Next shows page 1 again: the API ignores the page asked for.`,
		CorrectRepair: regressionReason + `the page indicator check (members-paginate step 3, equals "Page 2 of 3") fails.`,
		Breaks:        map[string]string{"members-paginate": "3"},
	},
	{
		Name: vReports500, Kind: demoapp.Regression,
		Description:   `The reports API answers 500; after the spinner the page says "Reports are unavailable".`,
		CorrectRepair: regressionReason + `the figures the checks read are never shown.`,
		Breaks:        map[string]string{"reports-totals": "2"},
	},
	{
		Name: vFilterBroken, Kind: demoapp.Regression,
		Description:   `The members filter is ignored: every member is listed whatever is typed.`,
		CorrectRepair: regressionReason + `the member count check (members-filter step 3, equals "1 member") fails.`,
		Breaks:        map[string]string{"members-filter": "3"},
	},
	{
		Name: vOwnerActionsGone, Kind: demoapp.Regression,
		Description: `A permission check meant for viewers hides every row action on the first member's row: Ada Lovelace can no ` +
			`longer be edited or deleted; every other row keeps its actions (combined with kebab-menu, every other row keeps its menu).`,
		CorrectRepair: regressionReason + `the Delete action of Ada Lovelace's row (member-delete-cancel step 2) is gone; another row's ` +
			`Delete, or another row's menu, acts on another member.`,
		Breaks: map[string]string{"member-delete-cancel": "2"},
	},
}

// Variants returns every variant, baseline first; the slice and its maps are copies.
func Variants() []Variant { return variants.Variants() }

// VariantNames lists the variant names in the order of Variants.
func VariantNames() []string { return variants.Names() }

// includes reports whether variant (one name or several joined with "+") includes name.
func includes(variant, name string) bool { return appkit.Includes(variant, name) }
