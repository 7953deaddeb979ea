"""Paper 004 (T. Zhang, *Mathematical Analysis of Machine Learning Algorithms*, ch. 10,
"Additive and Sparse Models"): batch ``fit``/``predict`` models -- boosting, the Lasso family,
best subset, the Gibbs posterior -- as the slides state them."""
