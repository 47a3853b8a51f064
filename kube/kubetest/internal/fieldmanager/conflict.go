// SPDX-License-Identifier: Apache-2.0

package fieldmanager

import (
	"fmt"
	"slices"
	"strings"
)

// ConflictCause is one conflict as the real server's Status lists it: a
// cause of type FieldManagerConflict.
type ConflictCause struct {
	Message, Field string
}

// ConflictMessage is the real server's conflict error (NewConflictError
// of the field manager): its message and causes, managers in the order of
// their identifiers, each one's fields in path order. conflicts is sorted
// in place.
func ConflictMessage(conflicts []Conflict) (string, []ConflictCause) {
	slices.SortStableFunc(conflicts, func(a, b Conflict) int {
		return strings.Compare(a.Manager.Identifier(), b.Manager.Identifier())
	})
	causes := make([]ConflictCause, len(conflicts))
	var lines []string
	for i, cf := range conflicts {
		causes[i] = ConflictCause{Message: "conflict with " + ManagerName(cf.Manager), Field: PathString(cf.Path)}
		if i == 0 || conflicts[i-1].Manager != cf.Manager {
			lines = append(lines, "conflicts with "+ManagerName(cf.Manager)+":")
		}
		lines = append(lines, "- "+causes[i].Field)
	}
	if len(conflicts) == 1 {
		return fmt.Sprintf("Apply failed with 1 conflict: conflict with %s: %s", ManagerName(conflicts[0].Manager), causes[0].Field), causes
	}
	return fmt.Sprintf("Apply failed with %d conflicts: %s", len(conflicts), strings.Join(lines, "\n")), causes
}
