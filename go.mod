module github.com/kubeloop/kubeloop

go 1.25
