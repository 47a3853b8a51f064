// SPDX-License-Identifier: Apache-2.0

package podsub

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// This file writes an ephemeral container in the form the real server's
// "may not be changed" message diffs: its internal Go struct
// (k8s.io/kubernetes/pkg/apis/core.EphemeralContainer) as encoding/json's
// MarshalIndent writes it with a one-space indent, the Go field names as
// keys (the internal types have no json tags), every field present, in
// the struct's order. The field lists are those of kube-apiserver 1.37's
// types; probes and lifecycle handlers, which no ephemeral container may
// have, are written as their JSON.

// goField is a field of an internal Go type: its Go name, the JSON key of
// the API's form, its shape and, for struct shapes, its type.
type goField struct {
	name, key string
	// shape: 's' string, 'b' bool, 'n' number, 'q' quantity, 'p'
	// pointer to a scalar, list of scalars, map or a struct written as
	// its JSON; 'o' struct, 'P' pointer to a struct, 'L' list of
	// structs, 'E' embedded struct (its fields inline).
	shape byte
	typ   string
}

// goTypes are the internal types an ephemeral container is made of.
var goTypes = map[string][]goField{
	"EphemeralContainer": {{"", "", 'E', "EphemeralContainerCommon"}, {"TargetContainerName", "targetContainerName", 's', ""}},
	"EphemeralContainerCommon": {{"Name", "name", 's', ""}, {"Image", "image", 's', ""}, {"Command", "command", 'p', ""},
		{"Args", "args", 'p', ""}, {"WorkingDir", "workingDir", 's', ""}, {"Ports", "ports", 'L', "ContainerPort"},
		{"EnvFrom", "envFrom", 'L', "EnvFromSource"}, {"Env", "env", 'L', "EnvVar"},
		{"Resources", "resources", 'o', "ResourceRequirements"}, {"ResizePolicy", "resizePolicy", 'L', "ContainerResizePolicy"},
		{"RestartPolicy", "restartPolicy", 'p', ""}, {"RestartPolicyRules", "restartPolicyRules", 'L', "ContainerRestartRule"},
		{"VolumeMounts", "volumeMounts", 'L', "VolumeMount"}, {"VolumeDevices", "volumeDevices", 'L', "VolumeDevice"},
		{"LivenessProbe", "livenessProbe", 'p', ""}, {"ReadinessProbe", "readinessProbe", 'p', ""},
		{"StartupProbe", "startupProbe", 'p', ""}, {"Lifecycle", "lifecycle", 'p', ""},
		{"TerminationMessagePath", "terminationMessagePath", 's', ""},
		{"TerminationMessagePolicy", "terminationMessagePolicy", 's', ""}, {"ImagePullPolicy", "imagePullPolicy", 's', ""},
		{"SecurityContext", "securityContext", 'P', "SecurityContext"}, {"Stdin", "stdin", 'b', ""},
		{"StdinOnce", "stdinOnce", 'b', ""}, {"TTY", "tty", 'b', ""}},
	"ContainerPort": {{"Name", "name", 's', ""}, {"HostPort", "hostPort", 'n', ""}, {"ContainerPort", "containerPort", 'n', ""},
		{"Protocol", "protocol", 's', ""}, {"HostIP", "hostIP", 's', ""}},
	"EnvFromSource": {{"Prefix", "prefix", 's', ""}, {"ConfigMapRef", "configMapRef", 'P', "RefOptional"},
		{"SecretRef", "secretRef", 'P', "RefOptional"}},
	"RefOptional":          {{"", "", 'E', "LocalObjectReference"}, {"Optional", "optional", 'p', ""}},
	"LocalObjectReference": {{"Name", "name", 's', ""}},
	"EnvVar":               {{"Name", "name", 's', ""}, {"Value", "value", 's', ""}, {"ValueFrom", "valueFrom", 'P', "EnvVarSource"}},
	"EnvVarSource": {{"FieldRef", "fieldRef", 'P', "ObjectFieldSelector"},
		{"ResourceFieldRef", "resourceFieldRef", 'P', "ResourceFieldSelector"},
		{"ConfigMapKeyRef", "configMapKeyRef", 'P', "KeySelector"}, {"SecretKeyRef", "secretKeyRef", 'P', "KeySelector"},
		{"FileKeyRef", "fileKeyRef", 'P', "FileKeySelector"}},
	"ObjectFieldSelector": {{"APIVersion", "apiVersion", 's', ""}, {"FieldPath", "fieldPath", 's', ""}},
	"ResourceFieldSelector": {{"ContainerName", "containerName", 's', ""}, {"Resource", "resource", 's', ""},
		{"Divisor", "divisor", 'q', ""}},
	"KeySelector": {{"", "", 'E', "LocalObjectReference"}, {"Key", "key", 's', ""}, {"Optional", "optional", 'p', ""}},
	"FileKeySelector": {{"VolumeName", "volumeName", 's', ""}, {"Path", "path", 's', ""}, {"Key", "key", 's', ""},
		{"Optional", "optional", 'p', ""}},
	"ResourceRequirements": {{"Limits", "limits", 'p', ""}, {"Requests", "requests", 'p', ""},
		{"Claims", "claims", 'L', "ResourceClaim"}},
	"ResourceClaim":         {{"Name", "name", 's', ""}, {"Request", "request", 's', ""}},
	"ContainerResizePolicy": {{"ResourceName", "resourceName", 's', ""}, {"RestartPolicy", "restartPolicy", 's', ""}},
	"ContainerRestartRule":  {{"Action", "action", 's', ""}, {"ExitCodes", "exitCodes", 'p', ""}},
	"VolumeMount": {{"Name", "name", 's', ""}, {"ReadOnly", "readOnly", 'b', ""},
		{"RecursiveReadOnly", "recursiveReadOnly", 'p', ""}, {"MountPath", "mountPath", 's', ""},
		{"SubPath", "subPath", 's', ""}, {"MountPropagation", "mountPropagation", 'p', ""},
		{"SubPathExpr", "subPathExpr", 's', ""}, {"BindMountOptions", "bindMountOptions", 'p', ""}},
	"VolumeDevice": {{"Name", "name", 's', ""}, {"DevicePath", "devicePath", 's', ""}},
	"SecurityContext": {{"Capabilities", "capabilities", 'P', "Capabilities"}, {"Privileged", "privileged", 'p', ""},
		{"SELinuxOptions", "seLinuxOptions", 'P', "SELinuxOptions"},
		{"WindowsOptions", "windowsOptions", 'P', "WindowsSecurityContextOptions"},
		{"RunAsUser", "runAsUser", 'p', ""}, {"RunAsGroup", "runAsGroup", 'p', ""}, {"RunAsNonRoot", "runAsNonRoot", 'p', ""},
		{"ReadOnlyRootFilesystem", "readOnlyRootFilesystem", 'p', ""},
		{"AllowPrivilegeEscalation", "allowPrivilegeEscalation", 'p', ""}, {"ProcMount", "procMount", 'p', ""},
		{"SeccompProfile", "seccompProfile", 'P', "Profile"}, {"AppArmorProfile", "appArmorProfile", 'P', "Profile"}},
	"Capabilities": {{"Add", "add", 'p', ""}, {"Drop", "drop", 'p', ""}},
	"SELinuxOptions": {{"User", "user", 's', ""}, {"Role", "role", 's', ""}, {"Type", "type", 's', ""},
		{"Level", "level", 's', ""}},
	"WindowsSecurityContextOptions": {{"GMSACredentialSpecName", "gmsaCredentialSpecName", 'p', ""},
		{"GMSACredentialSpec", "gmsaCredentialSpec", 'p', ""}, {"RunAsUserName", "runAsUserName", 'p', ""},
		{"HostProcess", "hostProcess", 'p', ""}},
	"Profile": {{"Type", "type", 's', ""}, {"LocalhostProfile", "localhostProfile", 'p', ""}},
}

// goForm is the ephemeral container ec in its internal Go form, as
// MarshalIndent with a one-space indent writes it.
func goForm(ec map[string]any) string {
	var compact, out bytes.Buffer
	writeStruct(&compact, "EphemeralContainer", ec)
	_ = json.Indent(&out, compact.Bytes(), "", " ")
	return out.String()
}

// writeStruct writes v as the Go struct typ, compact.
func writeStruct(b *bytes.Buffer, typ string, v map[string]any) {
	b.WriteByte('{')
	first := true
	writeFields(b, typ, v, &first)
	b.WriteByte('}')
}

// writeFields writes the fields of typ read from v, embedded ones inline.
func writeFields(b *bytes.Buffer, typ string, v map[string]any, first *bool) {
	for _, f := range goTypes[typ] {
		if f.shape == 'E' {
			writeFields(b, f.typ, v, first)
			continue
		}
		if !*first {
			b.WriteByte(',')
		}
		*first = false
		b.WriteString(strconv.Quote(f.name) + ":")
		writeField(b, f, v[f.key])
	}
}

// writeField writes the value val of field f, its zero value when val is
// missing.
func writeField(b *bytes.Buffer, f goField, val any) {
	switch f.shape {
	case 's':
		s, _ := val.(string)
		writeJSON(b, s)
	case 'b':
		b.WriteString(strconv.FormatBool(val == true))
	case 'n', 'q':
		if val == nil {
			val = map[byte]any{'n': 0, 'q': "0"}[f.shape]
		}
		writeJSON(b, val)
	case 'o':
		m, _ := val.(map[string]any)
		writeStruct(b, f.typ, m)
	case 'P':
		if m, ok := val.(map[string]any); ok {
			writeStruct(b, f.typ, m)
		} else {
			b.WriteString("null")
		}
	case 'L':
		list, ok := val.([]any)
		if !ok {
			b.WriteString("null")
			return
		}
		b.WriteByte('[')
		for i, it := range list {
			if i > 0 {
				b.WriteByte(',')
			}
			m, _ := it.(map[string]any)
			writeStruct(b, f.typ, m)
		}
		b.WriteByte(']')
	default: // 'p'
		writeJSON(b, val)
	}
}

// writeJSON writes v as encoding/json does (nil as null).
func writeJSON(b *bytes.Buffer, v any) {
	raw, err := json.Marshal(v)
	if err != nil {
		raw = []byte("null")
	}
	b.Write(raw)
}
