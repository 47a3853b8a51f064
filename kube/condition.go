// SPDX-License-Identifier: Apache-2.0

package kube

// Condition is one aspect of an object's state, as the API's
// metav1.Condition writes it: the same fields and JSON names, so a status
// struct with a
//
//	Conditions []kube.Condition `json:"conditions,omitempty"`
//
// field reads and writes what kubectl, kstatus and other controllers
// expect. The helpers below ([SetStatusCondition], [FindStatusCondition],
// [RemoveStatusCondition], [IsStatusConditionTrue], ...) work on such a
// field, whatever the struct around it.
//
// The crd tags state what the API validates (see kube/crd, which builds
// them into a schema): type and reason are CamelCase identifiers, status
// is one of the [ConditionStatus] values, and every field but
// observedGeneration is required, so a condition needs a reason and a
// lastTransitionTime ([SetStatusCondition] fills in the time).
type Condition struct {
	// Type names the aspect, in CamelCase ("Ready") or
	// foo.example.com/CamelCase.
	Type string `json:"type" crd:"maxLength=316,pattern='^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$'"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status" crd:"enum=True;False;Unknown"`
	// ObservedGeneration is the metadata.generation the condition was
	// computed from; a lower value than the object's generation means the
	// condition is out of date.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" crd:"minimum=0"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime"`
	// Reason is a CamelCase identifier of why Status is what it is; it may
	// not be empty.
	Reason string `json:"reason" crd:"minLength=1,maxLength=1024,pattern='^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$'"`
	// Message says the same for people; it may be empty.
	Message string `json:"message" crd:"maxLength=32768"`
}

// ConditionStatus is the status of a [Condition].
type ConditionStatus string

// The values of [Condition.Status].
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// SetStatusCondition puts c into *conditions and reports whether that
// changed anything, with the semantics of apimachinery's
// meta.SetStatusCondition:
//
//   - When no condition of c.Type is there, c is appended; a zero
//     LastTransitionTime becomes [Now].
//   - Otherwise the condition there takes c's Reason, Message and
//     ObservedGeneration, and, only when its Status differs from c's,
//     c's Status and a new LastTransitionTime (c's, or Now when c's is
//     zero). An unchanged status keeps the time it had, so the time says
//     when the status last changed, not when a controller last looked.
//
// The condition is changed in place: other slices sharing
// *conditions' backing array see the change. A nil conditions is a no-op.
// The cost is O(len(*conditions)).
func SetStatusCondition(conditions *[]Condition, c Condition) (changed bool) {
	if conditions == nil {
		return false
	}
	old := FindStatusCondition(*conditions, c.Type)
	if old == nil {
		if c.LastTransitionTime.IsZero() {
			c.LastTransitionTime = Now()
		}
		*conditions = append(*conditions, c)
		return true
	}
	if old.Status != c.Status {
		old.Status = c.Status
		old.LastTransitionTime = c.LastTransitionTime
		if old.LastTransitionTime.IsZero() {
			old.LastTransitionTime = Now()
		}
		changed = true
	}
	if old.Reason != c.Reason {
		old.Reason, changed = c.Reason, true
	}
	if old.Message != c.Message {
		old.Message, changed = c.Message, true
	}
	if old.ObservedGeneration != c.ObservedGeneration {
		old.ObservedGeneration, changed = c.ObservedGeneration, true
	}
	return changed
}

// RemoveStatusCondition removes the condition of type typ from
// *conditions and reports whether there was one. *conditions is replaced
// by a new slice, so slices sharing the old backing array are left as
// they were. A nil conditions is a no-op.
func RemoveStatusCondition(conditions *[]Condition, typ string) (removed bool) {
	if conditions == nil || FindStatusCondition(*conditions, typ) == nil {
		return false
	}
	out := make([]Condition, 0, len(*conditions)-1)
	for _, c := range *conditions {
		if c.Type != typ {
			out = append(out, c)
		}
	}
	*conditions = out
	return true
}

// FindStatusCondition returns the condition of type typ, a pointer into
// conditions, or nil when there is none.
func FindStatusCondition(conditions []Condition, typ string) *Condition {
	for i := range conditions {
		if conditions[i].Type == typ {
			return &conditions[i]
		}
	}
	return nil
}

// IsStatusConditionTrue reports whether the condition of type typ is
// there with status True.
func IsStatusConditionTrue(conditions []Condition, typ string) bool {
	return IsStatusConditionPresentAndEqual(conditions, typ, ConditionTrue)
}

// IsStatusConditionFalse reports whether the condition of type typ is
// there with status False. A missing condition is neither true nor false.
func IsStatusConditionFalse(conditions []Condition, typ string) bool {
	return IsStatusConditionPresentAndEqual(conditions, typ, ConditionFalse)
}

// IsStatusConditionPresentAndEqual reports whether the condition of type
// typ is there with the given status.
func IsStatusConditionPresentAndEqual(conditions []Condition, typ string, status ConditionStatus) bool {
	c := FindStatusCondition(conditions, typ)
	return c != nil && c.Status == status
}
