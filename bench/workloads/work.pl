# SPDX-License-Identifier: MIT
# Perl workload (run by /usr/bin/perl, a program nobody here wrote): word
# counts in a hash, sprintf, regular expressions, split/join and sort with a
# comparator.  The text comes from a fixed linear congruential generator;
# run with PERL_HASH_SEED=0 so hash order, and so the trace, is the same
# every run.
#
#   perl work.pl [WORDS]      (default 100000)
use strict;
use warnings;

my $words = shift // 100000;
my $seed = 1;

sub next_rand {
    $seed = ($seed * 1103515245 + 12345) % 2147483648;
    return $seed >> 8;
}

sub word { return sprintf("w%04d", next_rand() % 5000) }

my (%count, @lines, @line);
for my $i (1 .. $words) {
    my $w = word();
    $count{$w}++;
    push @line, $w;
    if (@line == 12) {
        push @lines, join(" ", @line);
        @line = ();
    }
}
my $matches = 0;
for my $l (@lines) {
    $matches++ while $l =~ /\bw0(\d)\d5\b/g;
    my @f = split / /, $l;
    $count{ $f[0] } += length($l) % 3;
}
my @top = sort { $count{$b} <=> $count{$a} || $a cmp $b } keys %count;
printf "%d words, %d distinct, %d matches, top %s\n", $words,
    scalar(@top), $matches, $top[0];
