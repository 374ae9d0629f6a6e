package org.paimongo.interop; public class Main { public static void main(String[] a){} }
