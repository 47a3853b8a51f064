// SPDX-License-Identifier: Apache-2.0

// Package fielderr holds a validation failure of one field as
// kube-apiserver reports it (apimachinery's field.Error): its type, path,
// bad value and detail, and the words a 422 Invalid Status carries for it
// ([Error.Body]), and the message of the Status that lists them
// ([Aggregate]). The server turns a list of them into that Status.
package fielderr
