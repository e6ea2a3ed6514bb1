module aorta-probe

go 1.26
