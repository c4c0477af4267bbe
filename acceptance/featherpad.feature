Feature: FeatherPad, a Qt text editor
  A plain-text editor from Debian: its whole text is one node of the tree,
  so words inside it are found by where they stand in the text.

  Background:
    Given I launch 'featherpad --standalone'

  @sample
  Scenario: Typed text shows in the editor
    When I type 'Shopping list for Saturday'
    Then I should see 'Shopping list for Saturday'

  Scenario: The third copy of a word among several lines
    When I type 'alpha beta'
    And I press 'Enter'
    And I type 'gamma alpha'
    And I press 'Enter'
    And I type 'alpha again'
    Then I should see 3 'alpha'
    When I double-click the third 'alpha'
    And I type 'omega'
    Then I should see 'omega again'
    And I should see 2 'alpha'

  Scenario: A double-click on a word selects it for typing over
    When I type 'red green blue'
    And I double-click 'green'
    And I type 'yellow'
    Then I should see 'red yellow blue'

  Scenario: Select all and delete empties the editor
    When I type 'Draft to throw away'
    And I press 'ctrl+a'
    And I press 'Delete'
    Then I should not see 'Draft to throw away'

  Scenario: The File menu lists what can be done with the file
    When I click the 'File' menu
    Then I should see the 'Save As' menu item
    And I should see the 'Print' menu item

  Scenario: Save As writes the text through a file dialog
    When I type 'Minutes of the Monday meeting'
    And I press 'ctrl+shift+s'
    Then I should see 'File name:'
    When I type 'minutes.txt'
    And I press 'Enter'
    And I run 'cat "$HOME/minutes.txt"'
    Then the command output should contain 'Minutes of the Monday meeting'

  Scenario: The search bar finds a word
    When I type 'needle in a haystack'
    And I click the 'Find' button
    Then I should see the 'Search' field

  Scenario: Undo takes back what was typed
    When I type 'first draft'
    And I press 'ctrl+z'
    Then I should not see 'first draft'
