// Placeholder until the CLI lands in this same series of commits.
int main() { return 0; }
