# mpimatch stream v1
# np=2
# 1024 receives with one tag from rank 1, then 1024 messages with that tag
R 0 0 1 7
R 1 0 1 7
R 2 0 1 7
R 3 0 1 7
R 4 0 1 7
R 5 0 1 7
R 6 0 1 7
R 7 0 1 7
R 8 0 1 7
R 9 0 1 7
R 10 0 1 7
R 11 0 1 7
R 12 0 1 7
R 13 0 1 7
R 14 0 1 7
R 15 0 1 7
R 16 0 1 7
R 17 0 1 7
R 18 0 1 7
R 19 0 1 7
R 20 0 1 7
R 21 0 1 7
R 22 0 1 7
R 23 0 1 7
R 24 0 1 7
R 25 0 1 7
R 26 0 1 7
R 27 0 1 7
R 28 0 1 7
R 29 0 1 7
R 30 0 1 7
R 31 0 1 7
R 32 0 1 7
R 33 0 1 7
R 34 0 1 7
R 35 0 1 7
R 36 0 1 7
R 37 0 1 7
R 38 0 1 7
R 39 0 1 7
R 40 0 1 7
R 41 0 1 7
R 42 0 1 7
R 43 0 1 7
R 44 0 1 7
R 45 0 1 7
R 46 0 1 7
R 47 0 1 7
R 48 0 1 7
R 49 0 1 7
R 50 0 1 7
R 51 0 1 7
R 52 0 1 7
R 53 0 1 7
R 54 0 1 7
R 55 0 1 7
R 56 0 1 7
R 57 0 1 7
R 58 0 1 7
R 59 0 1 7
R 60 0 1 7
R 61 0 1 7
R 62 0 1 7
R 63 0 1 7
R 64 0 1 7
R 65 0 1 7
R 66 0 1 7
R 67 0 1 7
R 68 0 1 7
R 69 0 1 7
R 70 0 1 7
R 71 0 1 7
R 72 0 1 7
R 73 0 1 7
R 74 0 1 7
R 75 0 1 7
R 76 0 1 7
R 77 0 1 7
R 78 0 1 7
R 79 0 1 7
R 80 0 1 7
R 81 0 1 7
R 82 0 1 7
R 83 0 1 7
R 84 0 1 7
R 85 0 1 7
R 86 0 1 7
R 87 0 1 7
R 88 0 1 7
R 89 0 1 7
R 90 0 1 7
R 91 0 1 7
R 92 0 1 7
R 93 0 1 7
R 94 0 1 7
R 95 0 1 7
R 96 0 1 7
R 97 0 1 7
R 98 0 1 7
R 99 0 1 7
R 100 0 1 7
R 101 0 1 7
R 102 0 1 7
R 103 0 1 7
R 104 0 1 7
R 105 0 1 7
R 106 0 1 7
R 107 0 1 7
R 108 0 1 7
R 109 0 1 7
R 110 0 1 7
R 111 0 1 7
R 112 0 1 7
R 113 0 1 7
R 114 0 1 7
R 115 0 1 7
R 116 0 1 7
R 117 0 1 7
R 118 0 1 7
R 119 0 1 7
R 120 0 1 7
R 121 0 1 7
R 122 0 1 7
R 123 0 1 7
R 124 0 1 7
R 125 0 1 7
R 126 0 1 7
R 127 0 1 7
R 128 0 1 7
R 129 0 1 7
R 130 0 1 7
R 131 0 1 7
R 132 0 1 7
R 133 0 1 7
R 134 0 1 7
R 135 0 1 7
R 136 0 1 7
R 137 0 1 7
R 138 0 1 7
R 139 0 1 7
R 140 0 1 7
R 141 0 1 7
R 142 0 1 7
R 143 0 1 7
R 144 0 1 7
R 145 0 1 7
R 146 0 1 7
R 147 0 1 7
R 148 0 1 7
R 149 0 1 7
R 150 0 1 7
R 151 0 1 7
R 152 0 1 7
R 153 0 1 7
R 154 0 1 7
R 155 0 1 7
R 156 0 1 7
R 157 0 1 7
R 158 0 1 7
R 159 0 1 7
R 160 0 1 7
R 161 0 1 7
R 162 0 1 7
R 163 0 1 7
R 164 0 1 7
R 165 0 1 7
R 166 0 1 7
R 167 0 1 7
R 168 0 1 7
R 169 0 1 7
R 170 0 1 7
R 171 0 1 7
R 172 0 1 7
R 173 0 1 7
R 174 0 1 7
R 175 0 1 7
R 176 0 1 7
R 177 0 1 7
R 178 0 1 7
R 179 0 1 7
R 180 0 1 7
R 181 0 1 7
R 182 0 1 7
R 183 0 1 7
R 184 0 1 7
R 185 0 1 7
R 186 0 1 7
R 187 0 1 7
R 188 0 1 7
R 189 0 1 7
R 190 0 1 7
R 191 0 1 7
R 192 0 1 7
R 193 0 1 7
R 194 0 1 7
R 195 0 1 7
R 196 0 1 7
R 197 0 1 7
R 198 0 1 7
R 199 0 1 7
R 200 0 1 7
R 201 0 1 7
R 202 0 1 7
R 203 0 1 7
R 204 0 1 7
R 205 0 1 7
R 206 0 1 7
R 207 0 1 7
R 208 0 1 7
R 209 0 1 7
R 210 0 1 7
R 211 0 1 7
R 212 0 1 7
R 213 0 1 7
R 214 0 1 7
R 215 0 1 7
R 216 0 1 7
R 217 0 1 7
R 218 0 1 7
R 219 0 1 7
R 220 0 1 7
R 221 0 1 7
R 222 0 1 7
R 223 0 1 7
R 224 0 1 7
R 225 0 1 7
R 226 0 1 7
R 227 0 1 7
R 228 0 1 7
R 229 0 1 7
R 230 0 1 7
R 231 0 1 7
R 232 0 1 7
R 233 0 1 7
R 234 0 1 7
R 235 0 1 7
R 236 0 1 7
R 237 0 1 7
R 238 0 1 7
R 239 0 1 7
R 240 0 1 7
R 241 0 1 7
R 242 0 1 7
R 243 0 1 7
R 244 0 1 7
R 245 0 1 7
R 246 0 1 7
R 247 0 1 7
R 248 0 1 7
R 249 0 1 7
R 250 0 1 7
R 251 0 1 7
R 252 0 1 7
R 253 0 1 7
R 254 0 1 7
R 255 0 1 7
R 256 0 1 7
R 257 0 1 7
R 258 0 1 7
R 259 0 1 7
R 260 0 1 7
R 261 0 1 7
R 262 0 1 7
R 263 0 1 7
R 264 0 1 7
R 265 0 1 7
R 266 0 1 7
R 267 0 1 7
R 268 0 1 7
R 269 0 1 7
R 270 0 1 7
R 271 0 1 7
R 272 0 1 7
R 273 0 1 7
R 274 0 1 7
R 275 0 1 7
R 276 0 1 7
R 277 0 1 7
R 278 0 1 7
R 279 0 1 7
R 280 0 1 7
R 281 0 1 7
R 282 0 1 7
R 283 0 1 7
R 284 0 1 7
R 285 0 1 7
R 286 0 1 7
R 287 0 1 7
R 288 0 1 7
R 289 0 1 7
R 290 0 1 7
R 291 0 1 7
R 292 0 1 7
R 293 0 1 7
R 294 0 1 7
R 295 0 1 7
R 296 0 1 7
R 297 0 1 7
R 298 0 1 7
R 299 0 1 7
R 300 0 1 7
R 301 0 1 7
R 302 0 1 7
R 303 0 1 7
R 304 0 1 7
R 305 0 1 7
R 306 0 1 7
R 307 0 1 7
R 308 0 1 7
R 309 0 1 7
R 310 0 1 7
R 311 0 1 7
R 312 0 1 7
R 313 0 1 7
R 314 0 1 7
R 315 0 1 7
R 316 0 1 7
R 317 0 1 7
R 318 0 1 7
R 319 0 1 7
R 320 0 1 7
R 321 0 1 7
R 322 0 1 7
R 323 0 1 7
R 324 0 1 7
R 325 0 1 7
R 326 0 1 7
R 327 0 1 7
R 328 0 1 7
R 329 0 1 7
R 330 0 1 7
R 331 0 1 7
R 332 0 1 7
R 333 0 1 7
R 334 0 1 7
R 335 0 1 7
R 336 0 1 7
R 337 0 1 7
R 338 0 1 7
R 339 0 1 7
R 340 0 1 7
R 341 0 1 7
R 342 0 1 7
R 343 0 1 7
R 344 0 1 7
R 345 0 1 7
R 346 0 1 7
R 347 0 1 7
R 348 0 1 7
R 349 0 1 7
R 350 0 1 7
R 351 0 1 7
R 352 0 1 7
R 353 0 1 7
R 354 0 1 7
R 355 0 1 7
R 356 0 1 7
R 357 0 1 7
R 358 0 1 7
R 359 0 1 7
R 360 0 1 7
R 361 0 1 7
R 362 0 1 7
R 363 0 1 7
R 364 0 1 7
R 365 0 1 7
R 366 0 1 7
R 367 0 1 7
R 368 0 1 7
R 369 0 1 7
R 370 0 1 7
R 371 0 1 7
R 372 0 1 7
R 373 0 1 7
R 374 0 1 7
R 375 0 1 7
R 376 0 1 7
R 377 0 1 7
R 378 0 1 7
R 379 0 1 7
R 380 0 1 7
R 381 0 1 7
R 382 0 1 7
R 383 0 1 7
R 384 0 1 7
R 385 0 1 7
R 386 0 1 7
R 387 0 1 7
R 388 0 1 7
R 389 0 1 7
R 390 0 1 7
R 391 0 1 7
R 392 0 1 7
R 393 0 1 7
R 394 0 1 7
R 395 0 1 7
R 396 0 1 7
R 397 0 1 7
R 398 0 1 7
R 399 0 1 7
R 400 0 1 7
R 401 0 1 7
R 402 0 1 7
R 403 0 1 7
R 404 0 1 7
R 405 0 1 7
R 406 0 1 7
R 407 0 1 7
R 408 0 1 7
R 409 0 1 7
R 410 0 1 7
R 411 0 1 7
R 412 0 1 7
R 413 0 1 7
R 414 0 1 7
R 415 0 1 7
R 416 0 1 7
R 417 0 1 7
R 418 0 1 7
R 419 0 1 7
R 420 0 1 7
R 421 0 1 7
R 422 0 1 7
R 423 0 1 7
R 424 0 1 7
R 425 0 1 7
R 426 0 1 7
R 427 0 1 7
R 428 0 1 7
R 429 0 1 7
R 430 0 1 7
R 431 0 1 7
R 432 0 1 7
R 433 0 1 7
R 434 0 1 7
R 435 0 1 7
R 436 0 1 7
R 437 0 1 7
R 438 0 1 7
R 439 0 1 7
R 440 0 1 7
R 441 0 1 7
R 442 0 1 7
R 443 0 1 7
R 444 0 1 7
R 445 0 1 7
R 446 0 1 7
R 447 0 1 7
R 448 0 1 7
R 449 0 1 7
R 450 0 1 7
R 451 0 1 7
R 452 0 1 7
R 453 0 1 7
R 454 0 1 7
R 455 0 1 7
R 456 0 1 7
R 457 0 1 7
R 458 0 1 7
R 459 0 1 7
R 460 0 1 7
R 461 0 1 7
R 462 0 1 7
R 463 0 1 7
R 464 0 1 7
R 465 0 1 7
R 466 0 1 7
R 467 0 1 7
R 468 0 1 7
R 469 0 1 7
R 470 0 1 7
R 471 0 1 7
R 472 0 1 7
R 473 0 1 7
R 474 0 1 7
R 475 0 1 7
R 476 0 1 7
R 477 0 1 7
R 478 0 1 7
R 479 0 1 7
R 480 0 1 7
R 481 0 1 7
R 482 0 1 7
R 483 0 1 7
R 484 0 1 7
R 485 0 1 7
R 486 0 1 7
R 487 0 1 7
R 488 0 1 7
R 489 0 1 7
R 490 0 1 7
R 491 0 1 7
R 492 0 1 7
R 493 0 1 7
R 494 0 1 7
R 495 0 1 7
R 496 0 1 7
R 497 0 1 7
R 498 0 1 7
R 499 0 1 7
R 500 0 1 7
R 501 0 1 7
R 502 0 1 7
R 503 0 1 7
R 504 0 1 7
R 505 0 1 7
R 506 0 1 7
R 507 0 1 7
R 508 0 1 7
R 509 0 1 7
R 510 0 1 7
R 511 0 1 7
R 512 0 1 7
R 513 0 1 7
R 514 0 1 7
R 515 0 1 7
R 516 0 1 7
R 517 0 1 7
R 518 0 1 7
R 519 0 1 7
R 520 0 1 7
R 521 0 1 7
R 522 0 1 7
R 523 0 1 7
R 524 0 1 7
R 525 0 1 7
R 526 0 1 7
R 527 0 1 7
R 528 0 1 7
R 529 0 1 7
R 530 0 1 7
R 531 0 1 7
R 532 0 1 7
R 533 0 1 7
R 534 0 1 7
R 535 0 1 7
R 536 0 1 7
R 537 0 1 7
R 538 0 1 7
R 539 0 1 7
R 540 0 1 7
R 541 0 1 7
R 542 0 1 7
R 543 0 1 7
R 544 0 1 7
R 545 0 1 7
R 546 0 1 7
R 547 0 1 7
R 548 0 1 7
R 549 0 1 7
R 550 0 1 7
R 551 0 1 7
R 552 0 1 7
R 553 0 1 7
R 554 0 1 7
R 555 0 1 7
R 556 0 1 7
R 557 0 1 7
R 558 0 1 7
R 559 0 1 7
R 560 0 1 7
R 561 0 1 7
R 562 0 1 7
R 563 0 1 7
R 564 0 1 7
R 565 0 1 7
R 566 0 1 7
R 567 0 1 7
R 568 0 1 7
R 569 0 1 7
R 570 0 1 7
R 571 0 1 7
R 572 0 1 7
R 573 0 1 7
R 574 0 1 7
R 575 0 1 7
R 576 0 1 7
R 577 0 1 7
R 578 0 1 7
R 579 0 1 7
R 580 0 1 7
R 581 0 1 7
R 582 0 1 7
R 583 0 1 7
R 584 0 1 7
R 585 0 1 7
R 586 0 1 7
R 587 0 1 7
R 588 0 1 7
R 589 0 1 7
R 590 0 1 7
R 591 0 1 7
R 592 0 1 7
R 593 0 1 7
R 594 0 1 7
R 595 0 1 7
R 596 0 1 7
R 597 0 1 7
R 598 0 1 7
R 599 0 1 7
R 600 0 1 7
R 601 0 1 7
R 602 0 1 7
R 603 0 1 7
R 604 0 1 7
R 605 0 1 7
R 606 0 1 7
R 607 0 1 7
R 608 0 1 7
R 609 0 1 7
R 610 0 1 7
R 611 0 1 7
R 612 0 1 7
R 613 0 1 7
R 614 0 1 7
R 615 0 1 7
R 616 0 1 7
R 617 0 1 7
R 618 0 1 7
R 619 0 1 7
R 620 0 1 7
R 621 0 1 7
R 622 0 1 7
R 623 0 1 7
R 624 0 1 7
R 625 0 1 7
R 626 0 1 7
R 627 0 1 7
R 628 0 1 7
R 629 0 1 7
R 630 0 1 7
R 631 0 1 7
R 632 0 1 7
R 633 0 1 7
R 634 0 1 7
R 635 0 1 7
R 636 0 1 7
R 637 0 1 7
R 638 0 1 7
R 639 0 1 7
R 640 0 1 7
R 641 0 1 7
R 642 0 1 7
R 643 0 1 7
R 644 0 1 7
R 645 0 1 7
R 646 0 1 7
R 647 0 1 7
R 648 0 1 7
R 649 0 1 7
R 650 0 1 7
R 651 0 1 7
R 652 0 1 7
R 653 0 1 7
R 654 0 1 7
R 655 0 1 7
R 656 0 1 7
R 657 0 1 7
R 658 0 1 7
R 659 0 1 7
R 660 0 1 7
R 661 0 1 7
R 662 0 1 7
R 663 0 1 7
R 664 0 1 7
R 665 0 1 7
R 666 0 1 7
R 667 0 1 7
R 668 0 1 7
R 669 0 1 7
R 670 0 1 7
R 671 0 1 7
R 672 0 1 7
R 673 0 1 7
R 674 0 1 7
R 675 0 1 7
R 676 0 1 7
R 677 0 1 7
R 678 0 1 7
R 679 0 1 7
R 680 0 1 7
R 681 0 1 7
R 682 0 1 7
R 683 0 1 7
R 684 0 1 7
R 685 0 1 7
R 686 0 1 7
R 687 0 1 7
R 688 0 1 7
R 689 0 1 7
R 690 0 1 7
R 691 0 1 7
R 692 0 1 7
R 693 0 1 7
R 694 0 1 7
R 695 0 1 7
R 696 0 1 7
R 697 0 1 7
R 698 0 1 7
R 699 0 1 7
R 700 0 1 7
R 701 0 1 7
R 702 0 1 7
R 703 0 1 7
R 704 0 1 7
R 705 0 1 7
R 706 0 1 7
R 707 0 1 7
R 708 0 1 7
R 709 0 1 7
R 710 0 1 7
R 711 0 1 7
R 712 0 1 7
R 713 0 1 7
R 714 0 1 7
R 715 0 1 7
R 716 0 1 7
R 717 0 1 7
R 718 0 1 7
R 719 0 1 7
R 720 0 1 7
R 721 0 1 7
R 722 0 1 7
R 723 0 1 7
R 724 0 1 7
R 725 0 1 7
R 726 0 1 7
R 727 0 1 7
R 728 0 1 7
R 729 0 1 7
R 730 0 1 7
R 731 0 1 7
R 732 0 1 7
R 733 0 1 7
R 734 0 1 7
R 735 0 1 7
R 736 0 1 7
R 737 0 1 7
R 738 0 1 7
R 739 0 1 7
R 740 0 1 7
R 741 0 1 7
R 742 0 1 7
R 743 0 1 7
R 744 0 1 7
R 745 0 1 7
R 746 0 1 7
R 747 0 1 7
R 748 0 1 7
R 749 0 1 7
R 750 0 1 7
R 751 0 1 7
R 752 0 1 7
R 753 0 1 7
R 754 0 1 7
R 755 0 1 7
R 756 0 1 7
R 757 0 1 7
R 758 0 1 7
R 759 0 1 7
R 760 0 1 7
R 761 0 1 7
R 762 0 1 7
R 763 0 1 7
R 764 0 1 7
R 765 0 1 7
R 766 0 1 7
R 767 0 1 7
R 768 0 1 7
R 769 0 1 7
R 770 0 1 7
R 771 0 1 7
R 772 0 1 7
R 773 0 1 7
R 774 0 1 7
R 775 0 1 7
R 776 0 1 7
R 777 0 1 7
R 778 0 1 7
R 779 0 1 7
R 780 0 1 7
R 781 0 1 7
R 782 0 1 7
R 783 0 1 7
R 784 0 1 7
R 785 0 1 7
R 786 0 1 7
R 787 0 1 7
R 788 0 1 7
R 789 0 1 7
R 790 0 1 7
R 791 0 1 7
R 792 0 1 7
R 793 0 1 7
R 794 0 1 7
R 795 0 1 7
R 796 0 1 7
R 797 0 1 7
R 798 0 1 7
R 799 0 1 7
R 800 0 1 7
R 801 0 1 7
R 802 0 1 7
R 803 0 1 7
R 804 0 1 7
R 805 0 1 7
R 806 0 1 7
R 807 0 1 7
R 808 0 1 7
R 809 0 1 7
R 810 0 1 7
R 811 0 1 7
R 812 0 1 7
R 813 0 1 7
R 814 0 1 7
R 815 0 1 7
R 816 0 1 7
R 817 0 1 7
R 818 0 1 7
R 819 0 1 7
R 820 0 1 7
R 821 0 1 7
R 822 0 1 7
R 823 0 1 7
R 824 0 1 7
R 825 0 1 7
R 826 0 1 7
R 827 0 1 7
R 828 0 1 7
R 829 0 1 7
R 830 0 1 7
R 831 0 1 7
R 832 0 1 7
R 833 0 1 7
R 834 0 1 7
R 835 0 1 7
R 836 0 1 7
R 837 0 1 7
R 838 0 1 7
R 839 0 1 7
R 840 0 1 7
R 841 0 1 7
R 842 0 1 7
R 843 0 1 7
R 844 0 1 7
R 845 0 1 7
R 846 0 1 7
R 847 0 1 7
R 848 0 1 7
R 849 0 1 7
R 850 0 1 7
R 851 0 1 7
R 852 0 1 7
R 853 0 1 7
R 854 0 1 7
R 855 0 1 7
R 856 0 1 7
R 857 0 1 7
R 858 0 1 7
R 859 0 1 7
R 860 0 1 7
R 861 0 1 7
R 862 0 1 7
R 863 0 1 7
R 864 0 1 7
R 865 0 1 7
R 866 0 1 7
R 867 0 1 7
R 868 0 1 7
R 869 0 1 7
R 870 0 1 7
R 871 0 1 7
R 872 0 1 7
R 873 0 1 7
R 874 0 1 7
R 875 0 1 7
R 876 0 1 7
R 877 0 1 7
R 878 0 1 7
R 879 0 1 7
R 880 0 1 7
R 881 0 1 7
R 882 0 1 7
R 883 0 1 7
R 884 0 1 7
R 885 0 1 7
R 886 0 1 7
R 887 0 1 7
R 888 0 1 7
R 889 0 1 7
R 890 0 1 7
R 891 0 1 7
R 892 0 1 7
R 893 0 1 7
R 894 0 1 7
R 895 0 1 7
R 896 0 1 7
R 897 0 1 7
R 898 0 1 7
R 899 0 1 7
R 900 0 1 7
R 901 0 1 7
R 902 0 1 7
R 903 0 1 7
R 904 0 1 7
R 905 0 1 7
R 906 0 1 7
R 907 0 1 7
R 908 0 1 7
R 909 0 1 7
R 910 0 1 7
R 911 0 1 7
R 912 0 1 7
R 913 0 1 7
R 914 0 1 7
R 915 0 1 7
R 916 0 1 7
R 917 0 1 7
R 918 0 1 7
R 919 0 1 7
R 920 0 1 7
R 921 0 1 7
R 922 0 1 7
R 923 0 1 7
R 924 0 1 7
R 925 0 1 7
R 926 0 1 7
R 927 0 1 7
R 928 0 1 7
R 929 0 1 7
R 930 0 1 7
R 931 0 1 7
R 932 0 1 7
R 933 0 1 7
R 934 0 1 7
R 935 0 1 7
R 936 0 1 7
R 937 0 1 7
R 938 0 1 7
R 939 0 1 7
R 940 0 1 7
R 941 0 1 7
R 942 0 1 7
R 943 0 1 7
R 944 0 1 7
R 945 0 1 7
R 946 0 1 7
R 947 0 1 7
R 948 0 1 7
R 949 0 1 7
R 950 0 1 7
R 951 0 1 7
R 952 0 1 7
R 953 0 1 7
R 954 0 1 7
R 955 0 1 7
R 956 0 1 7
R 957 0 1 7
R 958 0 1 7
R 959 0 1 7
R 960 0 1 7
R 961 0 1 7
R 962 0 1 7
R 963 0 1 7
R 964 0 1 7
R 965 0 1 7
R 966 0 1 7
R 967 0 1 7
R 968 0 1 7
R 969 0 1 7
R 970 0 1 7
R 971 0 1 7
R 972 0 1 7
R 973 0 1 7
R 974 0 1 7
R 975 0 1 7
R 976 0 1 7
R 977 0 1 7
R 978 0 1 7
R 979 0 1 7
R 980 0 1 7
R 981 0 1 7
R 982 0 1 7
R 983 0 1 7
R 984 0 1 7
R 985 0 1 7
R 986 0 1 7
R 987 0 1 7
R 988 0 1 7
R 989 0 1 7
R 990 0 1 7
R 991 0 1 7
R 992 0 1 7
R 993 0 1 7
R 994 0 1 7
R 995 0 1 7
R 996 0 1 7
R 997 0 1 7
R 998 0 1 7
R 999 0 1 7
R 1000 0 1 7
R 1001 0 1 7
R 1002 0 1 7
R 1003 0 1 7
R 1004 0 1 7
R 1005 0 1 7
R 1006 0 1 7
R 1007 0 1 7
R 1008 0 1 7
R 1009 0 1 7
R 1010 0 1 7
R 1011 0 1 7
R 1012 0 1 7
R 1013 0 1 7
R 1014 0 1 7
R 1015 0 1 7
R 1016 0 1 7
R 1017 0 1 7
R 1018 0 1 7
R 1019 0 1 7
R 1020 0 1 7
R 1021 0 1 7
R 1022 0 1 7
R 1023 0 1 7
M 1024 0 1 7 bytes=8
M 1025 0 1 7 bytes=8
M 1026 0 1 7 bytes=8
M 1027 0 1 7 bytes=8
M 1028 0 1 7 bytes=8
M 1029 0 1 7 bytes=8
M 1030 0 1 7 bytes=8
M 1031 0 1 7 bytes=8
M 1032 0 1 7 bytes=8
M 1033 0 1 7 bytes=8
M 1034 0 1 7 bytes=8
M 1035 0 1 7 bytes=8
M 1036 0 1 7 bytes=8
M 1037 0 1 7 bytes=8
M 1038 0 1 7 bytes=8
M 1039 0 1 7 bytes=8
M 1040 0 1 7 bytes=8
M 1041 0 1 7 bytes=8
M 1042 0 1 7 bytes=8
M 1043 0 1 7 bytes=8
M 1044 0 1 7 bytes=8
M 1045 0 1 7 bytes=8
M 1046 0 1 7 bytes=8
M 1047 0 1 7 bytes=8
M 1048 0 1 7 bytes=8
M 1049 0 1 7 bytes=8
M 1050 0 1 7 bytes=8
M 1051 0 1 7 bytes=8
M 1052 0 1 7 bytes=8
M 1053 0 1 7 bytes=8
M 1054 0 1 7 bytes=8
M 1055 0 1 7 bytes=8
M 1056 0 1 7 bytes=8
M 1057 0 1 7 bytes=8
M 1058 0 1 7 bytes=8
M 1059 0 1 7 bytes=8
M 1060 0 1 7 bytes=8
M 1061 0 1 7 bytes=8
M 1062 0 1 7 bytes=8
M 1063 0 1 7 bytes=8
M 1064 0 1 7 bytes=8
M 1065 0 1 7 bytes=8
M 1066 0 1 7 bytes=8
M 1067 0 1 7 bytes=8
M 1068 0 1 7 bytes=8
M 1069 0 1 7 bytes=8
M 1070 0 1 7 bytes=8
M 1071 0 1 7 bytes=8
M 1072 0 1 7 bytes=8
M 1073 0 1 7 bytes=8
M 1074 0 1 7 bytes=8
M 1075 0 1 7 bytes=8
M 1076 0 1 7 bytes=8
M 1077 0 1 7 bytes=8
M 1078 0 1 7 bytes=8
M 1079 0 1 7 bytes=8
M 1080 0 1 7 bytes=8
M 1081 0 1 7 bytes=8
M 1082 0 1 7 bytes=8
M 1083 0 1 7 bytes=8
M 1084 0 1 7 bytes=8
M 1085 0 1 7 bytes=8
M 1086 0 1 7 bytes=8
M 1087 0 1 7 bytes=8
M 1088 0 1 7 bytes=8
M 1089 0 1 7 bytes=8
M 1090 0 1 7 bytes=8
M 1091 0 1 7 bytes=8
M 1092 0 1 7 bytes=8
M 1093 0 1 7 bytes=8
M 1094 0 1 7 bytes=8
M 1095 0 1 7 bytes=8
M 1096 0 1 7 bytes=8
M 1097 0 1 7 bytes=8
M 1098 0 1 7 bytes=8
M 1099 0 1 7 bytes=8
M 1100 0 1 7 bytes=8
M 1101 0 1 7 bytes=8
M 1102 0 1 7 bytes=8
M 1103 0 1 7 bytes=8
M 1104 0 1 7 bytes=8
M 1105 0 1 7 bytes=8
M 1106 0 1 7 bytes=8
M 1107 0 1 7 bytes=8
M 1108 0 1 7 bytes=8
M 1109 0 1 7 bytes=8
M 1110 0 1 7 bytes=8
M 1111 0 1 7 bytes=8
M 1112 0 1 7 bytes=8
M 1113 0 1 7 bytes=8
M 1114 0 1 7 bytes=8
M 1115 0 1 7 bytes=8
M 1116 0 1 7 bytes=8
M 1117 0 1 7 bytes=8
M 1118 0 1 7 bytes=8
M 1119 0 1 7 bytes=8
M 1120 0 1 7 bytes=8
M 1121 0 1 7 bytes=8
M 1122 0 1 7 bytes=8
M 1123 0 1 7 bytes=8
M 1124 0 1 7 bytes=8
M 1125 0 1 7 bytes=8
M 1126 0 1 7 bytes=8
M 1127 0 1 7 bytes=8
M 1128 0 1 7 bytes=8
M 1129 0 1 7 bytes=8
M 1130 0 1 7 bytes=8
M 1131 0 1 7 bytes=8
M 1132 0 1 7 bytes=8
M 1133 0 1 7 bytes=8
M 1134 0 1 7 bytes=8
M 1135 0 1 7 bytes=8
M 1136 0 1 7 bytes=8
M 1137 0 1 7 bytes=8
M 1138 0 1 7 bytes=8
M 1139 0 1 7 bytes=8
M 1140 0 1 7 bytes=8
M 1141 0 1 7 bytes=8
M 1142 0 1 7 bytes=8
M 1143 0 1 7 bytes=8
M 1144 0 1 7 bytes=8
M 1145 0 1 7 bytes=8
M 1146 0 1 7 bytes=8
M 1147 0 1 7 bytes=8
M 1148 0 1 7 bytes=8
M 1149 0 1 7 bytes=8
M 1150 0 1 7 bytes=8
M 1151 0 1 7 bytes=8
M 1152 0 1 7 bytes=8
M 1153 0 1 7 bytes=8
M 1154 0 1 7 bytes=8
M 1155 0 1 7 bytes=8
M 1156 0 1 7 bytes=8
M 1157 0 1 7 bytes=8
M 1158 0 1 7 bytes=8
M 1159 0 1 7 bytes=8
M 1160 0 1 7 bytes=8
M 1161 0 1 7 bytes=8
M 1162 0 1 7 bytes=8
M 1163 0 1 7 bytes=8
M 1164 0 1 7 bytes=8
M 1165 0 1 7 bytes=8
M 1166 0 1 7 bytes=8
M 1167 0 1 7 bytes=8
M 1168 0 1 7 bytes=8
M 1169 0 1 7 bytes=8
M 1170 0 1 7 bytes=8
M 1171 0 1 7 bytes=8
M 1172 0 1 7 bytes=8
M 1173 0 1 7 bytes=8
M 1174 0 1 7 bytes=8
M 1175 0 1 7 bytes=8
M 1176 0 1 7 bytes=8
M 1177 0 1 7 bytes=8
M 1178 0 1 7 bytes=8
M 1179 0 1 7 bytes=8
M 1180 0 1 7 bytes=8
M 1181 0 1 7 bytes=8
M 1182 0 1 7 bytes=8
M 1183 0 1 7 bytes=8
M 1184 0 1 7 bytes=8
M 1185 0 1 7 bytes=8
M 1186 0 1 7 bytes=8
M 1187 0 1 7 bytes=8
M 1188 0 1 7 bytes=8
M 1189 0 1 7 bytes=8
M 1190 0 1 7 bytes=8
M 1191 0 1 7 bytes=8
M 1192 0 1 7 bytes=8
M 1193 0 1 7 bytes=8
M 1194 0 1 7 bytes=8
M 1195 0 1 7 bytes=8
M 1196 0 1 7 bytes=8
M 1197 0 1 7 bytes=8
M 1198 0 1 7 bytes=8
M 1199 0 1 7 bytes=8
M 1200 0 1 7 bytes=8
M 1201 0 1 7 bytes=8
M 1202 0 1 7 bytes=8
M 1203 0 1 7 bytes=8
M 1204 0 1 7 bytes=8
M 1205 0 1 7 bytes=8
M 1206 0 1 7 bytes=8
M 1207 0 1 7 bytes=8
M 1208 0 1 7 bytes=8
M 1209 0 1 7 bytes=8
M 1210 0 1 7 bytes=8
M 1211 0 1 7 bytes=8
M 1212 0 1 7 bytes=8
M 1213 0 1 7 bytes=8
M 1214 0 1 7 bytes=8
M 1215 0 1 7 bytes=8
M 1216 0 1 7 bytes=8
M 1217 0 1 7 bytes=8
M 1218 0 1 7 bytes=8
M 1219 0 1 7 bytes=8
M 1220 0 1 7 bytes=8
M 1221 0 1 7 bytes=8
M 1222 0 1 7 bytes=8
M 1223 0 1 7 bytes=8
M 1224 0 1 7 bytes=8
M 1225 0 1 7 bytes=8
M 1226 0 1 7 bytes=8
M 1227 0 1 7 bytes=8
M 1228 0 1 7 bytes=8
M 1229 0 1 7 bytes=8
M 1230 0 1 7 bytes=8
M 1231 0 1 7 bytes=8
M 1232 0 1 7 bytes=8
M 1233 0 1 7 bytes=8
M 1234 0 1 7 bytes=8
M 1235 0 1 7 bytes=8
M 1236 0 1 7 bytes=8
M 1237 0 1 7 bytes=8
M 1238 0 1 7 bytes=8
M 1239 0 1 7 bytes=8
M 1240 0 1 7 bytes=8
M 1241 0 1 7 bytes=8
M 1242 0 1 7 bytes=8
M 1243 0 1 7 bytes=8
M 1244 0 1 7 bytes=8
M 1245 0 1 7 bytes=8
M 1246 0 1 7 bytes=8
M 1247 0 1 7 bytes=8
M 1248 0 1 7 bytes=8
M 1249 0 1 7 bytes=8
M 1250 0 1 7 bytes=8
M 1251 0 1 7 bytes=8
M 1252 0 1 7 bytes=8
M 1253 0 1 7 bytes=8
M 1254 0 1 7 bytes=8
M 1255 0 1 7 bytes=8
M 1256 0 1 7 bytes=8
M 1257 0 1 7 bytes=8
M 1258 0 1 7 bytes=8
M 1259 0 1 7 bytes=8
M 1260 0 1 7 bytes=8
M 1261 0 1 7 bytes=8
M 1262 0 1 7 bytes=8
M 1263 0 1 7 bytes=8
M 1264 0 1 7 bytes=8
M 1265 0 1 7 bytes=8
M 1266 0 1 7 bytes=8
M 1267 0 1 7 bytes=8
M 1268 0 1 7 bytes=8
M 1269 0 1 7 bytes=8
M 1270 0 1 7 bytes=8
M 1271 0 1 7 bytes=8
M 1272 0 1 7 bytes=8
M 1273 0 1 7 bytes=8
M 1274 0 1 7 bytes=8
M 1275 0 1 7 bytes=8
M 1276 0 1 7 bytes=8
M 1277 0 1 7 bytes=8
M 1278 0 1 7 bytes=8
M 1279 0 1 7 bytes=8
M 1280 0 1 7 bytes=8
M 1281 0 1 7 bytes=8
M 1282 0 1 7 bytes=8
M 1283 0 1 7 bytes=8
M 1284 0 1 7 bytes=8
M 1285 0 1 7 bytes=8
M 1286 0 1 7 bytes=8
M 1287 0 1 7 bytes=8
M 1288 0 1 7 bytes=8
M 1289 0 1 7 bytes=8
M 1290 0 1 7 bytes=8
M 1291 0 1 7 bytes=8
M 1292 0 1 7 bytes=8
M 1293 0 1 7 bytes=8
M 1294 0 1 7 bytes=8
M 1295 0 1 7 bytes=8
M 1296 0 1 7 bytes=8
M 1297 0 1 7 bytes=8
M 1298 0 1 7 bytes=8
M 1299 0 1 7 bytes=8
M 1300 0 1 7 bytes=8
M 1301 0 1 7 bytes=8
M 1302 0 1 7 bytes=8
M 1303 0 1 7 bytes=8
M 1304 0 1 7 bytes=8
M 1305 0 1 7 bytes=8
M 1306 0 1 7 bytes=8
M 1307 0 1 7 bytes=8
M 1308 0 1 7 bytes=8
M 1309 0 1 7 bytes=8
M 1310 0 1 7 bytes=8
M 1311 0 1 7 bytes=8
M 1312 0 1 7 bytes=8
M 1313 0 1 7 bytes=8
M 1314 0 1 7 bytes=8
M 1315 0 1 7 bytes=8
M 1316 0 1 7 bytes=8
M 1317 0 1 7 bytes=8
M 1318 0 1 7 bytes=8
M 1319 0 1 7 bytes=8
M 1320 0 1 7 bytes=8
M 1321 0 1 7 bytes=8
M 1322 0 1 7 bytes=8
M 1323 0 1 7 bytes=8
M 1324 0 1 7 bytes=8
M 1325 0 1 7 bytes=8
M 1326 0 1 7 bytes=8
M 1327 0 1 7 bytes=8
M 1328 0 1 7 bytes=8
M 1329 0 1 7 bytes=8
M 1330 0 1 7 bytes=8
M 1331 0 1 7 bytes=8
M 1332 0 1 7 bytes=8
M 1333 0 1 7 bytes=8
M 1334 0 1 7 bytes=8
M 1335 0 1 7 bytes=8
M 1336 0 1 7 bytes=8
M 1337 0 1 7 bytes=8
M 1338 0 1 7 bytes=8
M 1339 0 1 7 bytes=8
M 1340 0 1 7 bytes=8
M 1341 0 1 7 bytes=8
M 1342 0 1 7 bytes=8
M 1343 0 1 7 bytes=8
M 1344 0 1 7 bytes=8
M 1345 0 1 7 bytes=8
M 1346 0 1 7 bytes=8
M 1347 0 1 7 bytes=8
M 1348 0 1 7 bytes=8
M 1349 0 1 7 bytes=8
M 1350 0 1 7 bytes=8
M 1351 0 1 7 bytes=8
M 1352 0 1 7 bytes=8
M 1353 0 1 7 bytes=8
M 1354 0 1 7 bytes=8
M 1355 0 1 7 bytes=8
M 1356 0 1 7 bytes=8
M 1357 0 1 7 bytes=8
M 1358 0 1 7 bytes=8
M 1359 0 1 7 bytes=8
M 1360 0 1 7 bytes=8
M 1361 0 1 7 bytes=8
M 1362 0 1 7 bytes=8
M 1363 0 1 7 bytes=8
M 1364 0 1 7 bytes=8
M 1365 0 1 7 bytes=8
M 1366 0 1 7 bytes=8
M 1367 0 1 7 bytes=8
M 1368 0 1 7 bytes=8
M 1369 0 1 7 bytes=8
M 1370 0 1 7 bytes=8
M 1371 0 1 7 bytes=8
M 1372 0 1 7 bytes=8
M 1373 0 1 7 bytes=8
M 1374 0 1 7 bytes=8
M 1375 0 1 7 bytes=8
M 1376 0 1 7 bytes=8
M 1377 0 1 7 bytes=8
M 1378 0 1 7 bytes=8
M 1379 0 1 7 bytes=8
M 1380 0 1 7 bytes=8
M 1381 0 1 7 bytes=8
M 1382 0 1 7 bytes=8
M 1383 0 1 7 bytes=8
M 1384 0 1 7 bytes=8
M 1385 0 1 7 bytes=8
M 1386 0 1 7 bytes=8
M 1387 0 1 7 bytes=8
M 1388 0 1 7 bytes=8
M 1389 0 1 7 bytes=8
M 1390 0 1 7 bytes=8
M 1391 0 1 7 bytes=8
M 1392 0 1 7 bytes=8
M 1393 0 1 7 bytes=8
M 1394 0 1 7 bytes=8
M 1395 0 1 7 bytes=8
M 1396 0 1 7 bytes=8
M 1397 0 1 7 bytes=8
M 1398 0 1 7 bytes=8
M 1399 0 1 7 bytes=8
M 1400 0 1 7 bytes=8
M 1401 0 1 7 bytes=8
M 1402 0 1 7 bytes=8
M 1403 0 1 7 bytes=8
M 1404 0 1 7 bytes=8
M 1405 0 1 7 bytes=8
M 1406 0 1 7 bytes=8
M 1407 0 1 7 bytes=8
M 1408 0 1 7 bytes=8
M 1409 0 1 7 bytes=8
M 1410 0 1 7 bytes=8
M 1411 0 1 7 bytes=8
M 1412 0 1 7 bytes=8
M 1413 0 1 7 bytes=8
M 1414 0 1 7 bytes=8
M 1415 0 1 7 bytes=8
M 1416 0 1 7 bytes=8
M 1417 0 1 7 bytes=8
M 1418 0 1 7 bytes=8
M 1419 0 1 7 bytes=8
M 1420 0 1 7 bytes=8
M 1421 0 1 7 bytes=8
M 1422 0 1 7 bytes=8
M 1423 0 1 7 bytes=8
M 1424 0 1 7 bytes=8
M 1425 0 1 7 bytes=8
M 1426 0 1 7 bytes=8
M 1427 0 1 7 bytes=8
M 1428 0 1 7 bytes=8
M 1429 0 1 7 bytes=8
M 1430 0 1 7 bytes=8
M 1431 0 1 7 bytes=8
M 1432 0 1 7 bytes=8
M 1433 0 1 7 bytes=8
M 1434 0 1 7 bytes=8
M 1435 0 1 7 bytes=8
M 1436 0 1 7 bytes=8
M 1437 0 1 7 bytes=8
M 1438 0 1 7 bytes=8
M 1439 0 1 7 bytes=8
M 1440 0 1 7 bytes=8
M 1441 0 1 7 bytes=8
M 1442 0 1 7 bytes=8
M 1443 0 1 7 bytes=8
M 1444 0 1 7 bytes=8
M 1445 0 1 7 bytes=8
M 1446 0 1 7 bytes=8
M 1447 0 1 7 bytes=8
M 1448 0 1 7 bytes=8
M 1449 0 1 7 bytes=8
M 1450 0 1 7 bytes=8
M 1451 0 1 7 bytes=8
M 1452 0 1 7 bytes=8
M 1453 0 1 7 bytes=8
M 1454 0 1 7 bytes=8
M 1455 0 1 7 bytes=8
M 1456 0 1 7 bytes=8
M 1457 0 1 7 bytes=8
M 1458 0 1 7 bytes=8
M 1459 0 1 7 bytes=8
M 1460 0 1 7 bytes=8
M 1461 0 1 7 bytes=8
M 1462 0 1 7 bytes=8
M 1463 0 1 7 bytes=8
M 1464 0 1 7 bytes=8
M 1465 0 1 7 bytes=8
M 1466 0 1 7 bytes=8
M 1467 0 1 7 bytes=8
M 1468 0 1 7 bytes=8
M 1469 0 1 7 bytes=8
M 1470 0 1 7 bytes=8
M 1471 0 1 7 bytes=8
M 1472 0 1 7 bytes=8
M 1473 0 1 7 bytes=8
M 1474 0 1 7 bytes=8
M 1475 0 1 7 bytes=8
M 1476 0 1 7 bytes=8
M 1477 0 1 7 bytes=8
M 1478 0 1 7 bytes=8
M 1479 0 1 7 bytes=8
M 1480 0 1 7 bytes=8
M 1481 0 1 7 bytes=8
M 1482 0 1 7 bytes=8
M 1483 0 1 7 bytes=8
M 1484 0 1 7 bytes=8
M 1485 0 1 7 bytes=8
M 1486 0 1 7 bytes=8
M 1487 0 1 7 bytes=8
M 1488 0 1 7 bytes=8
M 1489 0 1 7 bytes=8
M 1490 0 1 7 bytes=8
M 1491 0 1 7 bytes=8
M 1492 0 1 7 bytes=8
M 1493 0 1 7 bytes=8
M 1494 0 1 7 bytes=8
M 1495 0 1 7 bytes=8
M 1496 0 1 7 bytes=8
M 1497 0 1 7 bytes=8
M 1498 0 1 7 bytes=8
M 1499 0 1 7 bytes=8
M 1500 0 1 7 bytes=8
M 1501 0 1 7 bytes=8
M 1502 0 1 7 bytes=8
M 1503 0 1 7 bytes=8
M 1504 0 1 7 bytes=8
M 1505 0 1 7 bytes=8
M 1506 0 1 7 bytes=8
M 1507 0 1 7 bytes=8
M 1508 0 1 7 bytes=8
M 1509 0 1 7 bytes=8
M 1510 0 1 7 bytes=8
M 1511 0 1 7 bytes=8
M 1512 0 1 7 bytes=8
M 1513 0 1 7 bytes=8
M 1514 0 1 7 bytes=8
M 1515 0 1 7 bytes=8
M 1516 0 1 7 bytes=8
M 1517 0 1 7 bytes=8
M 1518 0 1 7 bytes=8
M 1519 0 1 7 bytes=8
M 1520 0 1 7 bytes=8
M 1521 0 1 7 bytes=8
M 1522 0 1 7 bytes=8
M 1523 0 1 7 bytes=8
M 1524 0 1 7 bytes=8
M 1525 0 1 7 bytes=8
M 1526 0 1 7 bytes=8
M 1527 0 1 7 bytes=8
M 1528 0 1 7 bytes=8
M 1529 0 1 7 bytes=8
M 1530 0 1 7 bytes=8
M 1531 0 1 7 bytes=8
M 1532 0 1 7 bytes=8
M 1533 0 1 7 bytes=8
M 1534 0 1 7 bytes=8
M 1535 0 1 7 bytes=8
M 1536 0 1 7 bytes=8
M 1537 0 1 7 bytes=8
M 1538 0 1 7 bytes=8
M 1539 0 1 7 bytes=8
M 1540 0 1 7 bytes=8
M 1541 0 1 7 bytes=8
M 1542 0 1 7 bytes=8
M 1543 0 1 7 bytes=8
M 1544 0 1 7 bytes=8
M 1545 0 1 7 bytes=8
M 1546 0 1 7 bytes=8
M 1547 0 1 7 bytes=8
M 1548 0 1 7 bytes=8
M 1549 0 1 7 bytes=8
M 1550 0 1 7 bytes=8
M 1551 0 1 7 bytes=8
M 1552 0 1 7 bytes=8
M 1553 0 1 7 bytes=8
M 1554 0 1 7 bytes=8
M 1555 0 1 7 bytes=8
M 1556 0 1 7 bytes=8
M 1557 0 1 7 bytes=8
M 1558 0 1 7 bytes=8
M 1559 0 1 7 bytes=8
M 1560 0 1 7 bytes=8
M 1561 0 1 7 bytes=8
M 1562 0 1 7 bytes=8
M 1563 0 1 7 bytes=8
M 1564 0 1 7 bytes=8
M 1565 0 1 7 bytes=8
M 1566 0 1 7 bytes=8
M 1567 0 1 7 bytes=8
M 1568 0 1 7 bytes=8
M 1569 0 1 7 bytes=8
M 1570 0 1 7 bytes=8
M 1571 0 1 7 bytes=8
M 1572 0 1 7 bytes=8
M 1573 0 1 7 bytes=8
M 1574 0 1 7 bytes=8
M 1575 0 1 7 bytes=8
M 1576 0 1 7 bytes=8
M 1577 0 1 7 bytes=8
M 1578 0 1 7 bytes=8
M 1579 0 1 7 bytes=8
M 1580 0 1 7 bytes=8
M 1581 0 1 7 bytes=8
M 1582 0 1 7 bytes=8
M 1583 0 1 7 bytes=8
M 1584 0 1 7 bytes=8
M 1585 0 1 7 bytes=8
M 1586 0 1 7 bytes=8
M 1587 0 1 7 bytes=8
M 1588 0 1 7 bytes=8
M 1589 0 1 7 bytes=8
M 1590 0 1 7 bytes=8
M 1591 0 1 7 bytes=8
M 1592 0 1 7 bytes=8
M 1593 0 1 7 bytes=8
M 1594 0 1 7 bytes=8
M 1595 0 1 7 bytes=8
M 1596 0 1 7 bytes=8
M 1597 0 1 7 bytes=8
M 1598 0 1 7 bytes=8
M 1599 0 1 7 bytes=8
M 1600 0 1 7 bytes=8
M 1601 0 1 7 bytes=8
M 1602 0 1 7 bytes=8
M 1603 0 1 7 bytes=8
M 1604 0 1 7 bytes=8
M 1605 0 1 7 bytes=8
M 1606 0 1 7 bytes=8
M 1607 0 1 7 bytes=8
M 1608 0 1 7 bytes=8
M 1609 0 1 7 bytes=8
M 1610 0 1 7 bytes=8
M 1611 0 1 7 bytes=8
M 1612 0 1 7 bytes=8
M 1613 0 1 7 bytes=8
M 1614 0 1 7 bytes=8
M 1615 0 1 7 bytes=8
M 1616 0 1 7 bytes=8
M 1617 0 1 7 bytes=8
M 1618 0 1 7 bytes=8
M 1619 0 1 7 bytes=8
M 1620 0 1 7 bytes=8
M 1621 0 1 7 bytes=8
M 1622 0 1 7 bytes=8
M 1623 0 1 7 bytes=8
M 1624 0 1 7 bytes=8
M 1625 0 1 7 bytes=8
M 1626 0 1 7 bytes=8
M 1627 0 1 7 bytes=8
M 1628 0 1 7 bytes=8
M 1629 0 1 7 bytes=8
M 1630 0 1 7 bytes=8
M 1631 0 1 7 bytes=8
M 1632 0 1 7 bytes=8
M 1633 0 1 7 bytes=8
M 1634 0 1 7 bytes=8
M 1635 0 1 7 bytes=8
M 1636 0 1 7 bytes=8
M 1637 0 1 7 bytes=8
M 1638 0 1 7 bytes=8
M 1639 0 1 7 bytes=8
M 1640 0 1 7 bytes=8
M 1641 0 1 7 bytes=8
M 1642 0 1 7 bytes=8
M 1643 0 1 7 bytes=8
M 1644 0 1 7 bytes=8
M 1645 0 1 7 bytes=8
M 1646 0 1 7 bytes=8
M 1647 0 1 7 bytes=8
M 1648 0 1 7 bytes=8
M 1649 0 1 7 bytes=8
M 1650 0 1 7 bytes=8
M 1651 0 1 7 bytes=8
M 1652 0 1 7 bytes=8
M 1653 0 1 7 bytes=8
M 1654 0 1 7 bytes=8
M 1655 0 1 7 bytes=8
M 1656 0 1 7 bytes=8
M 1657 0 1 7 bytes=8
M 1658 0 1 7 bytes=8
M 1659 0 1 7 bytes=8
M 1660 0 1 7 bytes=8
M 1661 0 1 7 bytes=8
M 1662 0 1 7 bytes=8
M 1663 0 1 7 bytes=8
M 1664 0 1 7 bytes=8
M 1665 0 1 7 bytes=8
M 1666 0 1 7 bytes=8
M 1667 0 1 7 bytes=8
M 1668 0 1 7 bytes=8
M 1669 0 1 7 bytes=8
M 1670 0 1 7 bytes=8
M 1671 0 1 7 bytes=8
M 1672 0 1 7 bytes=8
M 1673 0 1 7 bytes=8
M 1674 0 1 7 bytes=8
M 1675 0 1 7 bytes=8
M 1676 0 1 7 bytes=8
M 1677 0 1 7 bytes=8
M 1678 0 1 7 bytes=8
M 1679 0 1 7 bytes=8
M 1680 0 1 7 bytes=8
M 1681 0 1 7 bytes=8
M 1682 0 1 7 bytes=8
M 1683 0 1 7 bytes=8
M 1684 0 1 7 bytes=8
M 1685 0 1 7 bytes=8
M 1686 0 1 7 bytes=8
M 1687 0 1 7 bytes=8
M 1688 0 1 7 bytes=8
M 1689 0 1 7 bytes=8
M 1690 0 1 7 bytes=8
M 1691 0 1 7 bytes=8
M 1692 0 1 7 bytes=8
M 1693 0 1 7 bytes=8
M 1694 0 1 7 bytes=8
M 1695 0 1 7 bytes=8
M 1696 0 1 7 bytes=8
M 1697 0 1 7 bytes=8
M 1698 0 1 7 bytes=8
M 1699 0 1 7 bytes=8
M 1700 0 1 7 bytes=8
M 1701 0 1 7 bytes=8
M 1702 0 1 7 bytes=8
M 1703 0 1 7 bytes=8
M 1704 0 1 7 bytes=8
M 1705 0 1 7 bytes=8
M 1706 0 1 7 bytes=8
M 1707 0 1 7 bytes=8
M 1708 0 1 7 bytes=8
M 1709 0 1 7 bytes=8
M 1710 0 1 7 bytes=8
M 1711 0 1 7 bytes=8
M 1712 0 1 7 bytes=8
M 1713 0 1 7 bytes=8
M 1714 0 1 7 bytes=8
M 1715 0 1 7 bytes=8
M 1716 0 1 7 bytes=8
M 1717 0 1 7 bytes=8
M 1718 0 1 7 bytes=8
M 1719 0 1 7 bytes=8
M 1720 0 1 7 bytes=8
M 1721 0 1 7 bytes=8
M 1722 0 1 7 bytes=8
M 1723 0 1 7 bytes=8
M 1724 0 1 7 bytes=8
M 1725 0 1 7 bytes=8
M 1726 0 1 7 bytes=8
M 1727 0 1 7 bytes=8
M 1728 0 1 7 bytes=8
M 1729 0 1 7 bytes=8
M 1730 0 1 7 bytes=8
M 1731 0 1 7 bytes=8
M 1732 0 1 7 bytes=8
M 1733 0 1 7 bytes=8
M 1734 0 1 7 bytes=8
M 1735 0 1 7 bytes=8
M 1736 0 1 7 bytes=8
M 1737 0 1 7 bytes=8
M 1738 0 1 7 bytes=8
M 1739 0 1 7 bytes=8
M 1740 0 1 7 bytes=8
M 1741 0 1 7 bytes=8
M 1742 0 1 7 bytes=8
M 1743 0 1 7 bytes=8
M 1744 0 1 7 bytes=8
M 1745 0 1 7 bytes=8
M 1746 0 1 7 bytes=8
M 1747 0 1 7 bytes=8
M 1748 0 1 7 bytes=8
M 1749 0 1 7 bytes=8
M 1750 0 1 7 bytes=8
M 1751 0 1 7 bytes=8
M 1752 0 1 7 bytes=8
M 1753 0 1 7 bytes=8
M 1754 0 1 7 bytes=8
M 1755 0 1 7 bytes=8
M 1756 0 1 7 bytes=8
M 1757 0 1 7 bytes=8
M 1758 0 1 7 bytes=8
M 1759 0 1 7 bytes=8
M 1760 0 1 7 bytes=8
M 1761 0 1 7 bytes=8
M 1762 0 1 7 bytes=8
M 1763 0 1 7 bytes=8
M 1764 0 1 7 bytes=8
M 1765 0 1 7 bytes=8
M 1766 0 1 7 bytes=8
M 1767 0 1 7 bytes=8
M 1768 0 1 7 bytes=8
M 1769 0 1 7 bytes=8
M 1770 0 1 7 bytes=8
M 1771 0 1 7 bytes=8
M 1772 0 1 7 bytes=8
M 1773 0 1 7 bytes=8
M 1774 0 1 7 bytes=8
M 1775 0 1 7 bytes=8
M 1776 0 1 7 bytes=8
M 1777 0 1 7 bytes=8
M 1778 0 1 7 bytes=8
M 1779 0 1 7 bytes=8
M 1780 0 1 7 bytes=8
M 1781 0 1 7 bytes=8
M 1782 0 1 7 bytes=8
M 1783 0 1 7 bytes=8
M 1784 0 1 7 bytes=8
M 1785 0 1 7 bytes=8
M 1786 0 1 7 bytes=8
M 1787 0 1 7 bytes=8
M 1788 0 1 7 bytes=8
M 1789 0 1 7 bytes=8
M 1790 0 1 7 bytes=8
M 1791 0 1 7 bytes=8
M 1792 0 1 7 bytes=8
M 1793 0 1 7 bytes=8
M 1794 0 1 7 bytes=8
M 1795 0 1 7 bytes=8
M 1796 0 1 7 bytes=8
M 1797 0 1 7 bytes=8
M 1798 0 1 7 bytes=8
M 1799 0 1 7 bytes=8
M 1800 0 1 7 bytes=8
M 1801 0 1 7 bytes=8
M 1802 0 1 7 bytes=8
M 1803 0 1 7 bytes=8
M 1804 0 1 7 bytes=8
M 1805 0 1 7 bytes=8
M 1806 0 1 7 bytes=8
M 1807 0 1 7 bytes=8
M 1808 0 1 7 bytes=8
M 1809 0 1 7 bytes=8
M 1810 0 1 7 bytes=8
M 1811 0 1 7 bytes=8
M 1812 0 1 7 bytes=8
M 1813 0 1 7 bytes=8
M 1814 0 1 7 bytes=8
M 1815 0 1 7 bytes=8
M 1816 0 1 7 bytes=8
M 1817 0 1 7 bytes=8
M 1818 0 1 7 bytes=8
M 1819 0 1 7 bytes=8
M 1820 0 1 7 bytes=8
M 1821 0 1 7 bytes=8
M 1822 0 1 7 bytes=8
M 1823 0 1 7 bytes=8
M 1824 0 1 7 bytes=8
M 1825 0 1 7 bytes=8
M 1826 0 1 7 bytes=8
M 1827 0 1 7 bytes=8
M 1828 0 1 7 bytes=8
M 1829 0 1 7 bytes=8
M 1830 0 1 7 bytes=8
M 1831 0 1 7 bytes=8
M 1832 0 1 7 bytes=8
M 1833 0 1 7 bytes=8
M 1834 0 1 7 bytes=8
M 1835 0 1 7 bytes=8
M 1836 0 1 7 bytes=8
M 1837 0 1 7 bytes=8
M 1838 0 1 7 bytes=8
M 1839 0 1 7 bytes=8
M 1840 0 1 7 bytes=8
M 1841 0 1 7 bytes=8
M 1842 0 1 7 bytes=8
M 1843 0 1 7 bytes=8
M 1844 0 1 7 bytes=8
M 1845 0 1 7 bytes=8
M 1846 0 1 7 bytes=8
M 1847 0 1 7 bytes=8
M 1848 0 1 7 bytes=8
M 1849 0 1 7 bytes=8
M 1850 0 1 7 bytes=8
M 1851 0 1 7 bytes=8
M 1852 0 1 7 bytes=8
M 1853 0 1 7 bytes=8
M 1854 0 1 7 bytes=8
M 1855 0 1 7 bytes=8
M 1856 0 1 7 bytes=8
M 1857 0 1 7 bytes=8
M 1858 0 1 7 bytes=8
M 1859 0 1 7 bytes=8
M 1860 0 1 7 bytes=8
M 1861 0 1 7 bytes=8
M 1862 0 1 7 bytes=8
M 1863 0 1 7 bytes=8
M 1864 0 1 7 bytes=8
M 1865 0 1 7 bytes=8
M 1866 0 1 7 bytes=8
M 1867 0 1 7 bytes=8
M 1868 0 1 7 bytes=8
M 1869 0 1 7 bytes=8
M 1870 0 1 7 bytes=8
M 1871 0 1 7 bytes=8
M 1872 0 1 7 bytes=8
M 1873 0 1 7 bytes=8
M 1874 0 1 7 bytes=8
M 1875 0 1 7 bytes=8
M 1876 0 1 7 bytes=8
M 1877 0 1 7 bytes=8
M 1878 0 1 7 bytes=8
M 1879 0 1 7 bytes=8
M 1880 0 1 7 bytes=8
M 1881 0 1 7 bytes=8
M 1882 0 1 7 bytes=8
M 1883 0 1 7 bytes=8
M 1884 0 1 7 bytes=8
M 1885 0 1 7 bytes=8
M 1886 0 1 7 bytes=8
M 1887 0 1 7 bytes=8
M 1888 0 1 7 bytes=8
M 1889 0 1 7 bytes=8
M 1890 0 1 7 bytes=8
M 1891 0 1 7 bytes=8
M 1892 0 1 7 bytes=8
M 1893 0 1 7 bytes=8
M 1894 0 1 7 bytes=8
M 1895 0 1 7 bytes=8
M 1896 0 1 7 bytes=8
M 1897 0 1 7 bytes=8
M 1898 0 1 7 bytes=8
M 1899 0 1 7 bytes=8
M 1900 0 1 7 bytes=8
M 1901 0 1 7 bytes=8
M 1902 0 1 7 bytes=8
M 1903 0 1 7 bytes=8
M 1904 0 1 7 bytes=8
M 1905 0 1 7 bytes=8
M 1906 0 1 7 bytes=8
M 1907 0 1 7 bytes=8
M 1908 0 1 7 bytes=8
M 1909 0 1 7 bytes=8
M 1910 0 1 7 bytes=8
M 1911 0 1 7 bytes=8
M 1912 0 1 7 bytes=8
M 1913 0 1 7 bytes=8
M 1914 0 1 7 bytes=8
M 1915 0 1 7 bytes=8
M 1916 0 1 7 bytes=8
M 1917 0 1 7 bytes=8
M 1918 0 1 7 bytes=8
M 1919 0 1 7 bytes=8
M 1920 0 1 7 bytes=8
M 1921 0 1 7 bytes=8
M 1922 0 1 7 bytes=8
M 1923 0 1 7 bytes=8
M 1924 0 1 7 bytes=8
M 1925 0 1 7 bytes=8
M 1926 0 1 7 bytes=8
M 1927 0 1 7 bytes=8
M 1928 0 1 7 bytes=8
M 1929 0 1 7 bytes=8
M 1930 0 1 7 bytes=8
M 1931 0 1 7 bytes=8
M 1932 0 1 7 bytes=8
M 1933 0 1 7 bytes=8
M 1934 0 1 7 bytes=8
M 1935 0 1 7 bytes=8
M 1936 0 1 7 bytes=8
M 1937 0 1 7 bytes=8
M 1938 0 1 7 bytes=8
M 1939 0 1 7 bytes=8
M 1940 0 1 7 bytes=8
M 1941 0 1 7 bytes=8
M 1942 0 1 7 bytes=8
M 1943 0 1 7 bytes=8
M 1944 0 1 7 bytes=8
M 1945 0 1 7 bytes=8
M 1946 0 1 7 bytes=8
M 1947 0 1 7 bytes=8
M 1948 0 1 7 bytes=8
M 1949 0 1 7 bytes=8
M 1950 0 1 7 bytes=8
M 1951 0 1 7 bytes=8
M 1952 0 1 7 bytes=8
M 1953 0 1 7 bytes=8
M 1954 0 1 7 bytes=8
M 1955 0 1 7 bytes=8
M 1956 0 1 7 bytes=8
M 1957 0 1 7 bytes=8
M 1958 0 1 7 bytes=8
M 1959 0 1 7 bytes=8
M 1960 0 1 7 bytes=8
M 1961 0 1 7 bytes=8
M 1962 0 1 7 bytes=8
M 1963 0 1 7 bytes=8
M 1964 0 1 7 bytes=8
M 1965 0 1 7 bytes=8
M 1966 0 1 7 bytes=8
M 1967 0 1 7 bytes=8
M 1968 0 1 7 bytes=8
M 1969 0 1 7 bytes=8
M 1970 0 1 7 bytes=8
M 1971 0 1 7 bytes=8
M 1972 0 1 7 bytes=8
M 1973 0 1 7 bytes=8
M 1974 0 1 7 bytes=8
M 1975 0 1 7 bytes=8
M 1976 0 1 7 bytes=8
M 1977 0 1 7 bytes=8
M 1978 0 1 7 bytes=8
M 1979 0 1 7 bytes=8
M 1980 0 1 7 bytes=8
M 1981 0 1 7 bytes=8
M 1982 0 1 7 bytes=8
M 1983 0 1 7 bytes=8
M 1984 0 1 7 bytes=8
M 1985 0 1 7 bytes=8
M 1986 0 1 7 bytes=8
M 1987 0 1 7 bytes=8
M 1988 0 1 7 bytes=8
M 1989 0 1 7 bytes=8
M 1990 0 1 7 bytes=8
M 1991 0 1 7 bytes=8
M 1992 0 1 7 bytes=8
M 1993 0 1 7 bytes=8
M 1994 0 1 7 bytes=8
M 1995 0 1 7 bytes=8
M 1996 0 1 7 bytes=8
M 1997 0 1 7 bytes=8
M 1998 0 1 7 bytes=8
M 1999 0 1 7 bytes=8
M 2000 0 1 7 bytes=8
M 2001 0 1 7 bytes=8
M 2002 0 1 7 bytes=8
M 2003 0 1 7 bytes=8
M 2004 0 1 7 bytes=8
M 2005 0 1 7 bytes=8
M 2006 0 1 7 bytes=8
M 2007 0 1 7 bytes=8
M 2008 0 1 7 bytes=8
M 2009 0 1 7 bytes=8
M 2010 0 1 7 bytes=8
M 2011 0 1 7 bytes=8
M 2012 0 1 7 bytes=8
M 2013 0 1 7 bytes=8
M 2014 0 1 7 bytes=8
M 2015 0 1 7 bytes=8
M 2016 0 1 7 bytes=8
M 2017 0 1 7 bytes=8
M 2018 0 1 7 bytes=8
M 2019 0 1 7 bytes=8
M 2020 0 1 7 bytes=8
M 2021 0 1 7 bytes=8
M 2022 0 1 7 bytes=8
M 2023 0 1 7 bytes=8
M 2024 0 1 7 bytes=8
M 2025 0 1 7 bytes=8
M 2026 0 1 7 bytes=8
M 2027 0 1 7 bytes=8
M 2028 0 1 7 bytes=8
M 2029 0 1 7 bytes=8
M 2030 0 1 7 bytes=8
M 2031 0 1 7 bytes=8
M 2032 0 1 7 bytes=8
M 2033 0 1 7 bytes=8
M 2034 0 1 7 bytes=8
M 2035 0 1 7 bytes=8
M 2036 0 1 7 bytes=8
M 2037 0 1 7 bytes=8
M 2038 0 1 7 bytes=8
M 2039 0 1 7 bytes=8
M 2040 0 1 7 bytes=8
M 2041 0 1 7 bytes=8
M 2042 0 1 7 bytes=8
M 2043 0 1 7 bytes=8
M 2044 0 1 7 bytes=8
M 2045 0 1 7 bytes=8
M 2046 0 1 7 bytes=8
M 2047 0 1 7 bytes=8
