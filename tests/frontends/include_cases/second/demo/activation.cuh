// Never read: <demo/activation.cuh> is found in the first include directory, which is searched first.
#error second/demo/activation.cuh was read although first/ comes before second/
