module github.com/driftgardener/gardener

go 1.26
