module go127

go 1.27
